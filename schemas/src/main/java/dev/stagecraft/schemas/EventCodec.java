package dev.stagecraft.schemas;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Builds, encodes and decodes event envelopes. Thread-safe. Ids come from an injected supplier and
 * times from an injected clock so producers stay testable.
 */
public final class EventCodec {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          // after JavaTimeModule, so that its Instant (de)serializers take precedence
          .registerModule(InstantText.jacksonModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final String source;
  private final Clock clock;
  private final Supplier<String> ids;

  public EventCodec(String source, Clock clock, Supplier<String> ids) {
    this.source = source;
    this.clock = clock;
    this.ids = ids;
  }

  public static EventCodec forSource(String source) {
    return new EventCodec(source, Clock.systemUTC(), () -> UUID.randomUUID().toString());
  }

  /**
   * The mapper all Stagecraft JSON goes through (ISO-8601 times, unknown fields tolerated).
   * Instants are read and written by {@link InstantText}, with Jackson's standard parser for every
   * form other than the canonical one.
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public EventEnvelope wrap(
      String tenant, String workspace, String runId, long sequence, String subject, Object data) {
    return wrapWithId(ids.get(), tenant, workspace, runId, sequence, subject, data);
  }

  /** Wraps with a caller-chosen id, for events whose id must be deterministic (idempotency). */
  public EventEnvelope wrapWithId(
      String id,
      String tenant,
      String workspace,
      String runId,
      long sequence,
      String subject,
      Object data) {
    EventType type = EventType.forData(data);
    return new EventEnvelope(
        EventEnvelope.SPEC_VERSION,
        id,
        source,
        type.type(),
        subject,
        clock.instant(),
        "application/json",
        tenant,
        workspace,
        runId,
        sequence,
        EventType.SCHEMA_VERSION,
        MAPPER.valueToTree(data));
  }

  public static byte[] encode(EventEnvelope envelope) {
    try {
      return MAPPER.writeValueAsBytes(envelope);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("event not serializable: " + envelope.type(), e);
    }
  }

  /**
   * Decodes an envelope.
   *
   * @throws MalformedEventException when the bytes are not an envelope (poison message)
   */
  public static EventEnvelope decode(byte[] bytes) {
    try {
      EventEnvelope envelope = MAPPER.readValue(bytes, EventEnvelope.class);
      if (envelope.data() == null) {
        throw new MalformedEventException("event " + envelope.id() + " has no data");
      }
      return envelope;
    } catch (IOException | RuntimeException e) {
      if (e instanceof MalformedEventException m) {
        throw m;
      }
      throw new MalformedEventException("not a Stagecraft event: " + e.getMessage(), e);
    }
  }

  /** The typed data of an envelope, checked against the envelope's type. */
  public static <T> T data(EventEnvelope envelope, Class<T> type) {
    EventType expected = EventType.of(envelope.type()).orElse(null);
    if (expected == null || expected.dataClass() != type) {
      throw new MalformedEventException(
          "event " + envelope.id() + " of type " + envelope.type() + " is not a " + type);
    }
    try {
      return MAPPER.treeToValue(envelope.data(), type);
    } catch (JsonProcessingException e) {
      throw new MalformedEventException("event " + envelope.id() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The typed data of an envelope read from a stream whose events are {@code stream} (a sealed
   * interface of {@link EventStreams}, e.g. {@code ActionEvent}), for an exhaustive {@code switch}.
   *
   * @throws MalformedEventException when the type is unknown or does not travel on that stream
   */
  public static <S> S event(EventEnvelope envelope, Class<S> stream) {
    EventType type =
        EventType.of(envelope.type())
            .filter(t -> stream.isAssignableFrom(t.dataClass()))
            .orElseThrow(
                () ->
                    new MalformedEventException(
                        "event "
                            + envelope.id()
                            + " of type "
                            + envelope.type()
                            + " is not a "
                            + stream.getSimpleName()));
    return stream.cast(data(envelope, type.dataClass()));
  }

  public static JsonNode toTree(EventEnvelope envelope) {
    return MAPPER.valueToTree(envelope);
  }

  public static String toJson(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An event that cannot be decoded; consumers send it to a dead-letter topic. */
  public static final class MalformedEventException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedEventException(String message) {
      super(message);
    }

    public MalformedEventException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
