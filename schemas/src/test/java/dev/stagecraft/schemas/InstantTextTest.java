package dev.stagecraft.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Property-style checks of {@link InstantText} against the JDK and Jackson: the fast path must give
 * exactly the standard result, and must never accept what the standard parser rejects.
 */
class InstantTextTest {
  /** Jackson as EventCodec used it before InstantText: JavaTimeModule alone. */
  private static final ObjectMapper STANDARD =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private static final long MIN = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
  private static final long END = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond() + 1;

  private final Random random = new Random(20261121L);

  private static final List<String> EDGES =
      List.of(
          "1970-01-01T00:00:00Z",
          "1969-12-31T23:59:59.999999999Z",
          "0000-01-01T00:00:00Z",
          "0001-01-01T00:00:00Z",
          "9999-12-31T23:59:59.999999999Z",
          "2024-02-29T12:00:00Z",
          "2000-02-29T00:00:00.5Z",
          "2026-11-21T14:53:42.1Z",
          "2026-11-21T14:53:42.12Z",
          "2026-11-21T14:53:42.123Z",
          "2026-11-21T14:53:42.1234Z",
          "2026-11-21T14:53:42.12345Z",
          "2026-11-21T14:53:42.123456Z",
          "2026-11-21T14:53:42.1234567Z",
          "2026-11-21T14:53:42.12345678Z",
          "2026-11-21T14:53:42.123456789Z",
          "2026-11-21T14:53:42.000000000Z",
          "2026-11-21T14:53:42.000Z");

  private static final List<String> NOT_CANONICAL =
      List.of(
          "2026-11-21T14:53:42+01:00",
          "2026-11-21T14:53:42.5-05:30",
          "2026-11-21T14:53:42+00:00",
          "2026-11-21T23:59:60Z",
          "2026-11-21T24:00:00Z",
          "+10000-01-01T00:00:00Z",
          "-0001-01-01T00:00:00Z",
          " 2026-11-21T14:53:42Z",
          "2026-11-21T14:53:42Z ",
          "2026-11-21t14:53:42Z",
          "2026-11-21T14:53:42z",
          "2026-11-21T14:53:42.Z",
          "2026-11-21T14:53:42.1234567891Z",
          "2026-11-21T14:53Z",
          "2026-11-21T14:53:42",
          "2023-02-29T00:00:00Z",
          "1900-02-29T00:00:00Z",
          "2026-04-31T00:00:00Z",
          "2026-13-01T00:00:00Z",
          "2026-00-01T00:00:00Z",
          "2026-11-00T00:00:00Z",
          "2026-11-21T14:60:00Z",
          "2026-11-21T14:53:61Z",
          "2026-11-21 14:53:42Z",
          "2026/11/21T14:53:42Z",
          "２026-11-21T14:53:42Z",
          "",
          "not a time",
          "1763736822",
          "1763736822.5");

  @Test
  void formatsExactlyAsIsoInstantOnManyValues() {
    for (Instant instant : sampleInstants()) {
      assertThat(InstantText.format(instant))
          .as("%s", instant)
          .isEqualTo(DateTimeFormatter.ISO_INSTANT.format(instant));
    }
  }

  @Test
  void parsesWhatItFormatsExactlyAsInstantParse() {
    for (Instant instant : sampleInstants()) {
      String text = DateTimeFormatter.ISO_INSTANT.format(instant);
      Instant fast = InstantText.parse(text);
      if (instant.getEpochSecond() >= MIN && instant.getEpochSecond() < END) {
        assertThat(fast).as(text).isNotNull();
      }
      if (fast != null) {
        assertThat(fast).as(text).isEqualTo(Instant.parse(text)).isEqualTo(instant);
      }
    }
  }

  @Test
  void parsesEveryFractionLengthAndEdgeDateExactlyAsInstantParse() {
    for (String text : EDGES) {
      assertThat(InstantText.parse(text)).as(text).isNotNull().isEqualTo(Instant.parse(text));
    }
    for (int i = 0; i < 20_000; i++) {
      String text = randomCanonicalText();
      Instant fast = InstantText.parse(text);
      Instant standard = standardOrNull(text);
      if (fast == null && standard != null) {
        // accepted by Instant.parse but left to it on purpose: an empty fraction, the hour 24,
        // a leap second
        assertThat(text).matches(".*(\\.Z|T24:00:00(\\.0*)?Z|T23:59:60(\\.\\d*)?Z)");
      } else {
        assertThat(fast).as(text).isEqualTo(standard);
      }
    }
  }

  @Test
  void leavesEveryOtherFormToTheStandardParser() {
    for (String text : NOT_CANONICAL) {
      assertThat(InstantText.parse(text)).as(text).isNull();
    }
  }

  @Test
  void neverAcceptsWhatInstantParseRejectsOrDisagrees() {
    List<String> inputs = new ArrayList<>(NOT_CANONICAL);
    for (int i = 0; i < 20_000; i++) {
      inputs.add(mutate(randomCanonicalText()));
    }
    for (String text : inputs) {
      Instant fast = InstantText.parse(text);
      if (fast != null) {
        assertThat(fast).as(text).isEqualTo(standardOrNull(text));
      }
    }
  }

  @Test
  void theCodecsMapperReadsAndWritesLikeJacksonsStandardOneIncludingErrors() throws Exception {
    List<String> inputs = new ArrayList<>(EDGES);
    inputs.addAll(NOT_CANONICAL);
    for (int i = 0; i < 5_000; i++) {
      inputs.add(randomCanonicalText());
      inputs.add(mutate(randomCanonicalText()));
    }
    ObjectMapper codec = EventCodec.mapper();
    for (String text : inputs) {
      String json = STANDARD.writeValueAsString(new Holder(null)).replace("null", quote(text));
      assertThat(outcome(codec, json)).as(text).isEqualTo(outcome(STANDARD, json));
    }
    // numbers (epoch seconds) as Jackson reads them today
    for (String json : List.of("{\"time\":1763736822}", "{\"time\":1763736822.25}")) {
      assertThat(outcome(codec, json)).as(json).isEqualTo(outcome(STANDARD, json));
    }
    for (Instant instant : sampleInstants()) {
      Holder holder = new Holder(instant);
      assertThat(codec.writeValueAsString(holder)).isEqualTo(STANDARD.writeValueAsString(holder));
    }
  }

  @Test
  void theCodecsMapperUsesTheFastPathForInstants() throws Exception {
    ObjectMapper codec = EventCodec.mapper();
    DeserializationContext context =
        ((DefaultDeserializationContext) codec.getDeserializationContext())
            .createInstance(codec.getDeserializationConfig(), null, null);
    var deserializer = context.findRootValueDeserializer(codec.constructType(Instant.class));
    assertThat(deserializer.getClass().getEnclosingClass()).isEqualTo(InstantText.class);
    // and the envelope's own time property (contextualized for the property)
    var envelope =
        (com.fasterxml.jackson.databind.deser.BeanDeserializerBase)
            context.findRootValueDeserializer(
                codec.constructType(dev.stagecraft.schemas.envelope.EventEnvelope.class));
    assertThat(envelope.findProperty("time").getValueDeserializer().getClass().getEnclosingClass())
        .isEqualTo(InstantText.class);
  }

  private record Holder(Instant time) {}

  private static String quote(String text) {
    try {
      return STANDARD.writeValueAsString(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The decoded value, or the error's class and message (without the source location). */
  private static String outcome(ObjectMapper mapper, String json) {
    try {
      return "value " + mapper.readValue(json, Holder.class).time();
    } catch (Exception e) {
      String message = e.getMessage();
      int location = message.indexOf("\n at [Source");
      return e.getClass().getName()
          + ": "
          + (location < 0 ? message : message.substring(0, location));
    }
  }

  private static Instant standardOrNull(String text) {
    try {
      return Instant.parse(text);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private List<Instant> sampleInstants() {
    List<Instant> instants = new ArrayList<>();
    for (String text : EDGES) {
      instants.add(Instant.parse(text));
    }
    instants.add(Instant.ofEpochSecond(MIN - 1, 999_999_999));
    instants.add(Instant.ofEpochSecond(END, 0));
    instants.add(Instant.ofEpochSecond(END - 1, 999_999_999));
    instants.add(Instant.parse("+12345-06-07T08:09:10.5Z"));
    instants.add(Instant.parse("-0042-06-07T08:09:10Z"));
    instants.add(Instant.MIN);
    instants.add(Instant.MAX);
    int[] nanos = {0, 1, 999_999_999, 500_000_000, 123_000_000, 123_456_000, 123_456_789, 1_000};
    for (int i = 0; i < 20_000; i++) {
      long second =
          i % 2 == 0
              ? MIN + Math.floorMod(random.nextLong(), END - MIN)
              : 1_700_000_000L + random.nextInt(400_000_000);
      int nano =
          switch (i % 4) {
            case 0 -> random.nextInt(1_000_000_000);
            case 1 -> random.nextInt(1_000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> nanos[random.nextInt(nanos.length)];
          };
      instants.add(Instant.ofEpochSecond(second, nano));
    }
    return instants;
  }

  /**
   * A string of the canonical shape whose fields range a little beyond their valid values (month
   * 0–13, day 0–32, hour 0–24, minute and second 0–60), so invalid dates and leap days come up.
   */
  private String randomCanonicalText() {
    int year =
        switch (random.nextInt(4)) {
          case 0 -> random.nextInt(10_000);
          case 1 -> 1_600 + 4 * random.nextInt(150);
          case 2 -> 100 * random.nextInt(100);
          default -> 1_970 + random.nextInt(100);
        };
    StringBuilder text =
        new StringBuilder(
            String.format(
                "%04d-%02d-%02dT%02d:%02d:%02d",
                year,
                random.nextInt(14),
                random.nextInt(33),
                random.nextInt(25),
                random.nextInt(61),
                random.nextInt(61)));
    int digits = random.nextInt(11) - 1;
    if (digits >= 0) {
      text.append('.');
      for (int i = 0; i < digits; i++) {
        text.append((char) ('0' + random.nextInt(10)));
      }
    }
    return text.append('Z').toString();
  }

  private String mutate(String text) {
    StringBuilder out = new StringBuilder(text);
    String alphabet = "0123456789-:.TZz+ x";
    int position = random.nextInt(out.length() + 1);
    switch (random.nextInt(3)) {
      case 0 -> out.insert(position, alphabet.charAt(random.nextInt(alphabet.length())));
      case 1 -> {
        if (position < out.length()) {
          out.deleteCharAt(position);
        }
      }
      default -> {
        if (position < out.length()) {
          out.setCharAt(position, alphabet.charAt(random.nextInt(alphabet.length())));
        }
      }
    }
    return out.toString();
  }
}
