package dev.stagecraft.planner.apply;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Terraform (Go {@code time.ParseDuration}) duration strings: {@code "5m"}, {@code "2m30s"}. */
final class Durations {
  private static final Pattern PART =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)");
  private static final Map<String, BigDecimal> NANOS =
      Map.of(
          "ns", BigDecimal.ONE,
          "us", BigDecimal.valueOf(1_000L),
          "µs", BigDecimal.valueOf(1_000L),
          "μs", BigDecimal.valueOf(1_000L),
          "ms", BigDecimal.valueOf(1_000_000L),
          "s", BigDecimal.valueOf(1_000_000_000L),
          "m", BigDecimal.valueOf(60_000_000_000L),
          "h", BigDecimal.valueOf(3_600_000_000_000L));
  private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

  private Durations() {}

  /**
   * Whole seconds of a duration such as {@code "1h"}, {@code "2m30s"}, {@code "1.5m"} or {@code
   * "500ms"} (a fraction of a second counts as a whole one; {@code "0"} is zero); empty when the
   * text is not a non-negative duration (no unit, unknown unit, sign, spaces).
   */
  static OptionalLong seconds(String text) {
    if (text == null || text.isEmpty()) {
      return OptionalLong.empty();
    }
    if (text.equals("0")) {
      return OptionalLong.of(0);
    }
    Matcher m = PART.matcher(text);
    BigDecimal nanos = BigDecimal.ZERO;
    int at = 0;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        return OptionalLong.empty();
      }
      nanos = nanos.add(new BigDecimal(m.group(1)).multiply(NANOS.get(m.group(2))));
      at = m.end();
    }
    BigDecimal seconds = nanos.divide(NANOS_PER_SECOND, 0, RoundingMode.CEILING);
    if (seconds.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(seconds.longValueExact());
  }
}
