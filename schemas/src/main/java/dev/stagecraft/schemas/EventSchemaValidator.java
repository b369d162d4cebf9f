package dev.stagecraft.schemas;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Validates encoded events against the JSON Schema of their type (files in {@code schemas/}). */
public final class EventSchemaValidator {
  private final Map<EventType, Schema> schemas = new EnumMap<>(EventType.class);

  public EventSchemaValidator() {
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    for (EventType type : EventType.values()) {
      schemas.put(type, registry.getSchema(read(type.schemaResource()), InputFormat.JSON));
    }
  }

  /** Every violation of the event's schema; empty when valid. Unknown types are a violation. */
  public List<String> validate(String json) {
    EventEnvelope envelope;
    try {
      envelope = EventCodec.decode(json.getBytes(StandardCharsets.UTF_8));
    } catch (EventCodec.MalformedEventException e) {
      return List.of(e.getMessage());
    }
    EventType type = EventType.of(envelope.type()).orElse(null);
    if (type == null) {
      return List.of("unknown event type " + envelope.type());
    }
    return schemas.get(type).validate(json, InputFormat.JSON).stream()
        .map(e -> type.type() + ": " + e.toString())
        .toList();
  }

  private static String read(String resource) {
    try (InputStream in =
        EventSchemaValidator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing schema " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
