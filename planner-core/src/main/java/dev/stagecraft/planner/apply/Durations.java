package dev.stagecraft.planner.apply;

import dev.stagecraft.language.eval.GoDurations;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;

/** Terraform (Go {@code time.ParseDuration}) duration strings: {@code "5m"}, {@code "2m30s"}. */
public final class Durations {
  private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

  private Durations() {}

  /**
   * Whole seconds of a duration such as {@code "1h"}, {@code "2m30s"}, {@code "1.5m"} or {@code
   * "500ms"} (a fraction of a second counts as a whole one; {@code "0"} is zero); empty when the
   * text is not a non-negative duration (no unit, unknown unit, sign, spaces).
   */
  public static OptionalLong seconds(String text) {
    if (text == null) {
      return OptionalLong.empty();
    }
    return GoDurations.nanos(text)
        .map(nanos -> nanos.divide(NANOS_PER_SECOND, 0, RoundingMode.CEILING))
        .filter(seconds -> seconds.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0)
        .map(seconds -> OptionalLong.of(seconds.longValueExact()))
        .orElse(OptionalLong.empty());
  }
}
