package dev.stagecraft.executor.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.step.ActionRunner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a {@link DispatchedActionHandler} remembers of the action ids it took and of the runs
 * canceled: never more than its bound, a recent one still recognised, each kept for twice the
 * dispatch expiry and then forgotten.
 */
class DispatchedActionHandlerMemoryTest {
  static final Duration EXPIRY = Duration.ofMinutes(5);

  @TempDir Path work;
  final MovableClock clock = new MovableClock();
  DispatchedActionHandler handler;

  DispatchedActionHandler handler() {
    handler =
        new DispatchedActionHandler(new ActionRunner(work), null, "memory-test", 1)
            .withLiveness(Duration.ofHours(1), EXPIRY, clock);
    return handler;
  }

  @AfterEach
  void stop() throws InterruptedException {
    handler.awaitRunning(Duration.ofSeconds(5));
  }

  @Test
  void takenActionIdsStayWithinTheBoundAndARecentCopyIsStillRecognised() {
    DispatchedActionHandler h = handler();
    int taken = DispatchedActionHandler.REMEMBERED_ACTIONS + 1_000;
    for (int i = 0; i < taken; i++) {
      assertThat(h.take("run-1/a." + i)).isTrue();
    }

    assertThat(h.rememberedCounts()[0])
        .isLessThanOrEqualTo(DispatchedActionHandler.REMEMBERED_ACTIONS);
    for (int i = taken - 100; i < taken; i++) {
      assertThat(h.take("run-1/a." + i)).as("a copy of a recent dispatch").isFalse();
    }
    assertThat(h.take("run-1/new")).isTrue();
  }

  @Test
  void anActionIdIsRememberedForTwiceTheDispatchExpiry() {
    DispatchedActionHandler h = handler();
    assertThat(h.take("run-1/a")).isTrue();

    clock.advance(EXPIRY.multipliedBy(2).minusSeconds(1));
    assertThat(h.take("run-1/a")).as("a copy that might still be run").isFalse();

    clock.advance(Duration.ofSeconds(2));
    assertThat(h.take("run-1/a")).as("a copy this old is expired and not run").isTrue();
  }

  @Test
  void canceledRunsStayWithinTheBoundAndARecentCancelStillStopsItsDispatches() {
    DispatchedActionHandler h = handler();
    int canceled = DispatchedActionHandler.REMEMBERED_CANCELS + 1_000;
    for (int i = 0; i < canceled; i++) {
      assertThat(h.cancel("run-" + i, "stop " + i, "acme", "prod")).isZero();
    }

    assertThat(h.rememberedCounts()[1])
        .isLessThanOrEqualTo(DispatchedActionHandler.REMEMBERED_CANCELS);
    for (int i = canceled - 50; i < canceled; i++) {
      assertThat(h.canceledBecause("run-" + i, "acme", "prod")).isEqualTo("stop " + i);
    }
    assertThat(h.canceledBecause("run-" + (canceled - 1), "globex", "prod"))
        .as("only a cancel of the run's own tenant counts")
        .isNull();
  }

  @Test
  void aCancelIsRememberedForTwiceTheDispatchExpiry() {
    DispatchedActionHandler h = handler();
    h.cancel("run-1", "stop", "acme", "prod");

    clock.advance(EXPIRY.multipliedBy(2).minusSeconds(1));
    assertThat(h.canceledBecause("run-1", "acme", "prod")).isEqualTo("stop");

    clock.advance(Duration.ofSeconds(2));
    assertThat(h.canceledBecause("run-1", "acme", "prod")).isNull();
  }

  /** A clock that moves only when told. */
  static final class MovableClock extends Clock {
    private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
