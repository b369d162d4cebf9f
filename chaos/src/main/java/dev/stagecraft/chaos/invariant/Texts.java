package dev.stagecraft.chaos.invariant;

import java.time.Duration;
import java.util.Locale;

/** How violations write durations: milliseconds below a second, else seconds with 3 decimals. */
final class Texts {
  private Texts() {}

  static String duration(Duration d) {
    long ms = d.toMillis();
    if (Math.abs(ms) < 1000) {
      return ms + " ms";
    }
    return String.format(Locale.ROOT, "%.3f s", ms / 1000.0);
  }
}
