package dev.stagecraft.language.eval;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * Duration strings as Go's {@code time.ParseDuration} reads them ({@code "1h30m"}, {@code "1.5s"},
 * {@code "500ms"}): a sequence of decimal numbers, each with a unit ({@code ns us µs ms s m h}).
 * Read in one pass, in time linear in the text.
 */
public final class GoDurations {
  private GoDurations() {}

  /**
   * The nanoseconds of an unsigned duration ({@code "0"} is zero), or empty when {@code text} is
   * not one (no number, no or an unknown unit, a sign, spaces).
   */
  public static Optional<BigDecimal> nanos(String text) {
    if (text.equals("0")) {
      return Optional.of(BigDecimal.ZERO);
    }
    BigDecimal total = BigDecimal.ZERO;
    int i = 0;
    while (i < text.length()) {
      int start = i;
      while (i < text.length() && isDigitOrPoint(text.charAt(i))) {
        i++;
      }
      String number = text.substring(start, i);
      if (number.isEmpty()
          || number.equals(".")
          || number.indexOf('.') != number.lastIndexOf('.')) {
        return Optional.empty();
      }
      int unitStart = i;
      while (i < text.length() && !isDigitOrPoint(text.charAt(i))) {
        i++;
      }
      long unit = unitNanos(text.substring(unitStart, i));
      if (unit == 0) {
        return Optional.empty();
      }
      total = total.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unit)));
    }
    return text.isEmpty() ? Optional.empty() : Optional.of(total);
  }

  private static boolean isDigitOrPoint(char ch) {
    return (ch >= '0' && ch <= '9') || ch == '.';
  }

  /** Nanoseconds per unit; 0 for an unknown unit. */
  private static long unitNanos(String unit) {
    return switch (unit) {
      case "ns" -> 1L;
      case "us", "µs", "μs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      default -> 0L;
    };
  }
}
