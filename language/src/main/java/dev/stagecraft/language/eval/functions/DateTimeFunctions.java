package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.str;

import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.GoDurations;
import dev.stagecraft.language.eval.Value;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.TextStyle;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/** Terraform's date and time functions (Go's RFC 3339 and duration syntax). */
final class DateTimeFunctions {
  private DateTimeFunctions() {}

  static Functions register(Functions f) {
    return f.with(
            FunctionDef.of(
                    "timestamp",
                    0,
                    0,
                    (a, c) ->
                        Value.string(
                            DateTimeFormatter.ISO_INSTANT.format(
                                c.clock().instant().truncatedTo(ChronoUnit.SECONDS))))
                .asImpure())
        .with(
            FunctionDef.of(
                "plantimestamp",
                0,
                0,
                (a, c) ->
                    Value.string(
                        rfc3339(
                            c.planTimestamp()
                                .truncatedTo(ChronoUnit.SECONDS)
                                .atOffset(ZoneOffset.UTC)))))
        .with(FunctionDef.of("formatdate", 2, 2, DateTimeFunctions::formatdate))
        .with(FunctionDef.of("timeadd", 2, 2, DateTimeFunctions::timeadd))
        .with(
            FunctionDef.of(
                "timecmp",
                2,
                2,
                (a, c) ->
                    Value.number(
                        Integer.signum(time(a, 0).toInstant().compareTo(time(a, 1).toInstant())))));
  }

  private static OffsetDateTime time(List<Value> a, int i) {
    String s = str(a, i);
    try {
      return OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    } catch (DateTimeParseException e) {
      throw new FunctionException(
          i, "\"" + s + "\" is not a valid RFC 3339 timestamp, e.g. \"2018-01-02T23:12:01Z\".");
    }
  }

  /** Go's time.RFC3339 (fractional seconds only when present, {@code Z} for UTC). */
  static String rfc3339(OffsetDateTime t) {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%04d-%02d-%02dT%02d:%02d:%02d",
                t.getYear(),
                t.getMonthValue(),
                t.getDayOfMonth(),
                t.getHour(),
                t.getMinute(),
                t.getSecond()));
    if (t.getNano() != 0) {
      sb.append('.').append(String.format("%09d", t.getNano()).replaceAll("0+$", ""));
    }
    int off = t.getOffset().getTotalSeconds();
    if (off == 0) {
      sb.append('Z');
    } else {
      sb.append(off < 0 ? '-' : '+')
          .append(String.format("%02d:%02d", Math.abs(off) / 3600, Math.abs(off) / 60 % 60));
    }
    return sb.toString();
  }

  private static Value formatdate(List<Value> a, EvalContext c) {
    String spec = str(a, 0);
    OffsetDateTime t = time(a, 1);
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < spec.length()) {
      char ch = spec.charAt(i);
      if (ch == '\'') {
        int j = i + 1;
        StringBuilder lit = new StringBuilder();
        while (true) {
          if (j >= spec.length()) {
            throw new FunctionException(0, "unterminated literal quote in the format.");
          }
          if (spec.charAt(j) == '\'') {
            if (j + 1 < spec.length() && spec.charAt(j + 1) == '\'') {
              lit.append('\'');
              j += 2;
              continue;
            }
            break;
          }
          lit.append(spec.charAt(j++));
        }
        sb.append(i + 1 == j ? "'" : lit); // '' is a literal quote
        i = j + 1;
        continue;
      }
      if (!Character.isLetter(ch)) {
        sb.append(ch);
        i++;
        continue;
      }
      int j = i;
      while (j < spec.length() && spec.charAt(j) == ch) {
        j++;
      }
      String seq = spec.substring(i, j);
      i = j;
      int off = t.getOffset().getTotalSeconds();
      String offSign = off < 0 ? "-" : "+";
      int oh = Math.abs(off) / 3600;
      int om = Math.abs(off) / 60 % 60;
      int h12 = t.getHour() % 12 == 0 ? 12 : t.getHour() % 12;
      sb.append(
          switch (seq) {
            case "YYYY" -> String.format("%04d", t.getYear());
            case "YY" -> String.format("%02d", t.getYear() % 100);
            case "MMMM" -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            case "MMM" -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "MM" -> String.format("%02d", t.getMonthValue());
            case "M" -> Integer.toString(t.getMonthValue());
            case "DD" -> String.format("%02d", t.getDayOfMonth());
            case "D" -> Integer.toString(t.getDayOfMonth());
            case "EEEE" -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            case "EEE" -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "hh" -> String.format("%02d", t.getHour());
            case "h" -> Integer.toString(t.getHour());
            case "HH" -> String.format("%02d", h12);
            case "H" -> Integer.toString(h12);
            case "AA" -> t.getHour() < 12 ? "AM" : "PM";
            case "aa" -> t.getHour() < 12 ? "am" : "pm";
            case "mm" -> String.format("%02d", t.getMinute());
            case "m" -> Integer.toString(t.getMinute());
            case "ss" -> String.format("%02d", t.getSecond());
            case "s" -> Integer.toString(t.getSecond());
            case "ZZZZZ" -> off == 0 ? "+00:00" : String.format("%s%02d:%02d", offSign, oh, om);
            case "ZZZZ" -> String.format("%s%02d%02d", off < 0 ? "-" : "+", oh, om);
            case "ZZZ" -> off == 0 ? "UTC" : String.format("%s%02d%02d", offSign, oh, om);
            case "Z" -> off == 0 ? "Z" : String.format("%s%02d:%02d", offSign, oh, om);
            default ->
                throw new FunctionException(
                    0,
                    "invalid date format verb \""
                        + seq
                        + "\"; put literal text in single quotes, e.g. 'at'.");
          });
    }
    return Value.string(sb.toString());
  }

  /** Go's time.ParseDuration. */
  static Duration parseDuration(String s, int argIndex) {
    boolean neg = s.startsWith("-");
    String unsigned = neg || s.startsWith("+") ? s.substring(1) : s;
    BigDecimal nanos =
        GoDurations.nanos(unsigned)
            .orElseThrow(
                () ->
                    new FunctionException(
                        argIndex,
                        "invalid duration \""
                            + s
                            + "\"; use a number and unit, e.g. \"1h30m\" or \"-10s\"."));
    Duration d = Duration.ofNanos(nanos.longValue());
    return neg ? d.negated() : d;
  }

  private static Value timeadd(List<Value> a, EvalContext c) {
    OffsetDateTime t = time(a, 0);
    return Value.string(rfc3339(t.plus(parseDuration(str(a, 1), 1))));
  }
}
