package dev.stagecraft.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The golden files under {@code src/test/resources/golden} are the wire contract: one complete
 * envelope per event type ({@code <type>.json}, plus {@code <type>.<variant>.json} for a second
 * shape). Encoding the Java value must give the file, and decoding the file must give the Java
 * value. After an intended change, regenerate them with {@code mvn -B -o test -pl schemas
 * -Dtest=GoldenEventsTest -Dgolden.update=true} and review the diff (schemas/README.md).
 */
class GoldenEventsTest {
  static final Path DIR = Path.of("src/test/resources/golden");
  private static final boolean UPDATE = Boolean.getBoolean("golden.update");
  private static final Instant TIME = Instant.parse("2026-11-21T10:00:00Z");

  /** Only to write files: map entries sorted, so a regeneration gives the same bytes. */
  private static final ObjectMapper WRITER =
      EventCodec.mapper()
          .copy()
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private final EventCodec codec =
      new EventCodec(
          "/stagecraft/planner", Clock.fixed(TIME, ZoneOffset.UTC), () -> "not-deterministic");
  private final EventSchemaValidator validator = new EventSchemaValidator();

  private EventEnvelope envelope(String name, Object data) {
    return codec.wrapWithId(
        "evt-" + name,
        GoldenEvents.TENANT,
        GoldenEvents.WORKSPACE,
        GoldenEvents.RUN,
        3,
        GoldenEvents.ADDRESS,
        data);
  }

  @Test
  void everyEventTypeHasAGoldenFileAndASample() {
    Map<String, Object> samples = GoldenEvents.all();
    List<String> missing = new ArrayList<>();
    for (EventType type : EventType.values()) {
      if (!Files.isRegularFile(DIR.resolve(type.type() + ".json"))) {
        missing.add(DIR.resolve(type.type() + ".json") + " (no golden file)");
      }
      if (!samples.containsKey(type.type())) {
        missing.add(type.type() + " (no sample in GoldenEvents)");
      }
    }
    assertThat(missing)
        .as(
            "every EventType needs a sample in GoldenEvents and its golden file; write the file"
                + " with -Dgolden.update=true")
        .isEmpty();
  }

  @Test
  void everyGoldenFileHasASampleOfItsType() throws IOException {
    Map<String, Object> samples = GoldenEvents.all();
    Set<String> files = new TreeSet<>();
    try (Stream<Path> list = Files.list(DIR)) {
      list.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".json"))
          .forEach(n -> files.add(n.substring(0, n.length() - ".json".length())));
    }
    assertThat(samples.keySet())
        .as("golden files without a sample: delete them")
        .containsAll(files);
    samples.forEach(
        (name, data) -> {
          String type = EventType.forData(data).type();
          assertThat(name.equals(type) || name.startsWith(type + "."))
              .as(name + " holds a " + type)
              .isTrue();
        });
  }

  @TestFactory
  Stream<DynamicTest> encodingEachEventGivesItsGoldenFile() {
    return GoldenEvents.all().entrySet().stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.getKey(), () -> encodesToGolden(e.getKey(), e.getValue())));
  }

  @TestFactory
  Stream<DynamicTest> decodingEachGoldenFileGivesTheEvent() {
    return GoldenEvents.all().entrySet().stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.getKey(), () -> decodesFromGolden(e.getKey(), e.getValue())));
  }

  private void encodesToGolden(String name, Object data) throws IOException {
    EventEnvelope envelope = envelope(name, data);
    Path file = goldenFile(name, data);
    if (!Files.isRegularFile(file)) {
      fail(file + " is missing; write it with -Dgolden.update=true");
    }
    JsonNode expected = EventCodec.mapper().readTree(Files.readAllBytes(file));
    JsonNode actual = EventCodec.mapper().readTree(EventCodec.encode(envelope));
    List<String> diffs = new ArrayList<>();
    diff("", expected, actual, diffs);
    if (!diffs.isEmpty()) {
      fail(
          "the wire format of "
              + name
              + " differs from "
              + file
              + " (if intended, regenerate with -Dgolden.update=true):\n  "
              + String.join("\n  ", diffs));
    }
    assertThat(validator.validate(Files.readString(file, StandardCharsets.UTF_8)))
        .as(file + " against " + EventType.forData(data).schemaResource())
        .isEmpty();
  }

  private void decodesFromGolden(String name, Object data) throws IOException {
    Path file = goldenFile(name, data);
    EventEnvelope decoded = EventCodec.decode(Files.readAllBytes(file));
    assertThat(withData(decoded, null))
        .as(file + " envelope")
        .isEqualTo(withData(envelope(name, data), null));
    assertThat(EventCodec.data(decoded, data.getClass())).as(file + " data").isEqualTo(data);
  }

  /** The golden file of {@code name}, first (re)written from {@code data} with golden.update. */
  private Path goldenFile(String name, Object data) throws IOException {
    Path file = DIR.resolve(name + ".json");
    if (UPDATE) {
      EventEnvelope sorted = withData(envelope(name, data), WRITER.valueToTree(data));
      Files.writeString(file, WRITER.writeValueAsString(sorted) + "\n");
    }
    return file;
  }

  private static EventEnvelope withData(EventEnvelope e, JsonNode data) {
    return new EventEnvelope(
        e.specversion(),
        e.id(),
        e.source(),
        e.type(),
        e.subject(),
        e.time(),
        e.datacontenttype(),
        e.tenant(),
        e.workspace(),
        e.runid(),
        e.sequence(),
        e.schemaversion(),
        data);
  }

  /** Adds one line per difference: JSON pointer, what the golden file has, what the code wrote. */
  static void diff(String path, JsonNode expected, JsonNode actual, List<String> out) {
    if (expected.isObject() && actual.isObject()) {
      Set<String> names = new TreeSet<>();
      expected.fieldNames().forEachRemaining(names::add);
      actual.fieldNames().forEachRemaining(names::add);
      for (String n : names) {
        String p = path + "/" + n;
        if (!actual.has(n)) {
          out.add(p + ": in the golden file (" + expected.get(n) + "), not written any more");
        } else if (!expected.has(n)) {
          out.add(p + ": written (" + actual.get(n) + "), not in the golden file");
        } else {
          diff(p, expected.get(n), actual.get(n), out);
        }
      }
    } else if (expected.isArray() && actual.isArray()) {
      Iterator<JsonNode> a = actual.elements();
      int i = 0;
      for (JsonNode e : expected) {
        if (!a.hasNext()) {
          out.add(path + "/" + i + ": in the golden file (" + e + "), not written any more");
        } else {
          diff(path + "/" + i, e, a.next(), out);
        }
        i++;
      }
      while (a.hasNext()) {
        out.add(path + "/" + i++ + ": written (" + a.next() + "), not in the golden file");
      }
    } else if (!expected.equals(actual)) {
      out.add(path + ": golden " + expected + ", written " + actual);
    }
  }
}
