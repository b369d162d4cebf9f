package dev.stagecraft.planner.service.run;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock the test moves forward by hand, starting at 2026-11-21T10:00:00Z. {@link #now} is
 * volatile, so the coordinator's timer thread sees each move.
 */
final class MovableClock extends Clock {
  volatile Instant now = Instant.parse("2026-11-21T10:00:00Z");

  void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
