package dev.stagecraft.schemas;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import com.fasterxml.jackson.datatype.jsr310.ser.InstantSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

/**
 * Reads and writes the text of an {@link Instant} in the one form every Stagecraft JSON document
 * carries it, {@code 2026-11-21T14:53:42.123Z} ({@link DateTimeFormatter#ISO_INSTANT}'s output),
 * without going through {@code DateTimeFormatter}: its parser builds a field map, a parse context
 * and a {@code TemporalAccessor} per value, which was about 45 % of decoding an event envelope in
 * the planner's listeners (docs/benchmarks.md, "Trigger-to-action latency"; ADR 0033).
 *
 * <p>Exactness is the contract: {@link #parse} accepts only {@code yyyy-MM-ddTHH:mm:ss} with a year
 * of four digits, an optional fraction of 1–9 digits and {@code Z}, and returns exactly what {@link
 * Instant#parse} returns for it; for anything else (offsets, a second of 60, the hour 24,
 * whitespace, years beyond four digits, invalid dates) it returns {@code null} and the callers fall
 * back to the standard parser, so results and errors stay those of {@code Instant.parse} /
 * Jackson's {@link InstantDeserializer}. {@link #format} returns exactly {@code
 * ISO_INSTANT.format(instant)} (fractions printed in groups of three digits). Stateless,
 * thread-safe.
 */
public final class InstantText {
  /** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the range of four-digit years. */
  private static final long MIN_SECOND = -62_167_219_200L;

  private static final long END_SECOND = 253_402_300_800L;
  private static final int[] SCALE = {
    0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
  };

  private InstantText() {}

  /** {@link #parse(char[], int, int)} of a string. */
  public static Instant parse(String text) {
    return parse(text.toCharArray(), 0, text.length());
  }

  /**
   * The instant {@code text[offset, offset + length)} denotes, or {@code null} when it is not in
   * the canonical form described above (the caller then uses the standard parser).
   */
  public static Instant parse(char[] text, int offset, int length) {
    // yyyy-MM-ddTHH:mm:ss then optionally .f{1,9}, then Z
    if (length < 20 || length > 30) {
      return null;
    }
    int p = offset;
    int year = digits4(text, p);
    if (year < 0 || text[p + 4] != '-') {
      return null;
    }
    int month = digits2(text, p + 5);
    if (month < 1 || month > 12 || text[p + 7] != '-') {
      return null;
    }
    int day = digits2(text, p + 8);
    if (day < 1 || day > lengthOfMonth(year, month) || text[p + 10] != 'T') {
      return null;
    }
    int hour = digits2(text, p + 11);
    if (hour < 0 || hour > 23 || text[p + 13] != ':') {
      return null;
    }
    int minute = digits2(text, p + 14);
    if (minute < 0 || minute > 59 || text[p + 16] != ':') {
      return null;
    }
    int second = digits2(text, p + 17);
    if (second < 0 || second > 59) {
      return null;
    }
    int end = offset + length;
    int i = p + 19;
    int nano = 0;
    if (text[i] == '.') {
      int first = ++i;
      while (i < end && i - first < 9 && isDigit(text[i])) {
        nano = nano * 10 + (text[i] - '0');
        i++;
      }
      int count = i - first;
      if (count == 0) {
        return null;
      }
      nano *= SCALE[count];
    }
    if (i != end - 1 || text[i] != 'Z') {
      return null;
    }
    long seconds =
        epochDay(year, month, day) * 86_400L + hour * 3_600L + minute * 60L + (long) second;
    return Instant.ofEpochSecond(seconds, nano);
  }

  /** Exactly {@code DateTimeFormatter.ISO_INSTANT.format(instant)}. */
  public static String format(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds < MIN_SECOND || seconds >= END_SECOND) {
      return DateTimeFormatter.ISO_INSTANT.format(instant);
    }
    long days = Math.floorDiv(seconds, 86_400L);
    int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
    // civil-from-days (H. Hinnant), proleptic Gregorian, as java.time uses
    long z = days + 719_468L;
    long era = Math.floorDiv(z, 146_097L);
    long dayOfEra = z - era * 146_097L;
    long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long mp = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * mp + 2) / 5 + 1);
    int month = (int) (mp < 10 ? mp + 3 : mp - 9);
    int year = (int) (yearOfEra + era * 400 + (month <= 2 ? 1 : 0));
    int nano = instant.getNano();
    char[] out =
        new char[nano == 0 ? 20 : nano % 1_000_000 == 0 ? 24 : nano % 1_000 == 0 ? 27 : 30];
    put(out, 0, year, 4);
    out[4] = '-';
    put(out, 5, month, 2);
    out[7] = '-';
    put(out, 8, day, 2);
    out[10] = 'T';
    put(out, 11, secondOfDay / 3_600, 2);
    out[13] = ':';
    put(out, 14, secondOfDay / 60 % 60, 2);
    out[16] = ':';
    put(out, 17, secondOfDay % 60, 2);
    if (nano != 0) {
      out[19] = '.';
      int digits = out.length - 21;
      put(out, 20, nano / SCALE[digits], digits);
    }
    out[out.length - 1] = 'Z';
    return new String(out);
  }

  /**
   * A Jackson module that reads and writes {@link Instant} through this class, falling back to
   * Jackson's own {@link InstantDeserializer} / {@link InstantSerializer} for every other form (and
   * whenever a property overrides the format), so results and errors are the standard ones.
   * Register it after {@code JavaTimeModule}.
   */
  public static SimpleModule jacksonModule() {
    SimpleModule module = new SimpleModule("stagecraft-instant-text");
    module.addSerializer(Instant.class, new Serializer());
    module.addDeserializer(Instant.class, new Deserializer(InstantDeserializer.INSTANT));
    return module;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int digits2(char[] text, int at) {
    char a = text[at];
    char b = text[at + 1];
    if (!isDigit(a) || !isDigit(b)) {
      return -1;
    }
    return (a - '0') * 10 + (b - '0');
  }

  private static int digits4(char[] text, int at) {
    int hi = digits2(text, at);
    int lo = digits2(text, at + 2);
    return hi < 0 || lo < 0 ? -1 : hi * 100 + lo;
  }

  private static boolean isLeap(int year) {
    return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
  }

  private static int lengthOfMonth(int year, int month) {
    return switch (month) {
      case 2 -> isLeap(year) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /** Days since 1970-01-01 (days-from-civil, H. Hinnant), for a valid date. */
  private static long epochDay(int year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400L);
    long yearOfEra = y - era * 400;
    long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097L + dayOfEra - 719_468L;
  }

  private static void put(char[] out, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      out[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  private static final class Serializer extends StdScalarSerializer<Instant> {
    private static final long serialVersionUID = 1L;

    Serializer() {
      super(Instant.class);
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      if (provider.isEnabled(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)) {
        InstantSerializer.INSTANCE.serialize(value, gen, provider);
      } else {
        gen.writeString(format(value));
      }
    }
  }

  private static final class Deserializer extends StdScalarDeserializer<Instant>
      implements ContextualDeserializer {
    private static final long serialVersionUID = 1L;
    private final JsonDeserializer<Instant> standard;

    Deserializer(JsonDeserializer<Instant> standard) {
      super(Instant.class);
      this.standard = standard;
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_STRING) {
        Instant fast = parse(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        if (fast != null) {
          return fast;
        }
      }
      return standard.deserialize(p, ctxt);
    }

    @Override
    @SuppressWarnings("unchecked")
    public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property)
        throws JsonMappingException {
      JsonDeserializer<?> contextual =
          ((ContextualDeserializer) standard).createContextual(ctxt, property);
      // a property with its own format (@JsonFormat) gets Jackson's deserializer as it is
      return contextual == standard ? this : contextual;
    }
  }
}
