package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartBackoffTest {
  static final Duration SHORT = Duration.ofSeconds(2);

  @Test
  void theDelayDoublesFromOneSecondUpToThirtySeconds() {
    RestartBackoff backoff = new RestartBackoff();

    assertThat(backoff.next(SHORT)).isEqualTo(restart(1, 1));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(2, 2));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(3, 4));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(4, 8));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(5, 16));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(6, 30));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(7, 30));
    for (int i = 0; i < 100; i++) {
      backoff.next(SHORT); // no overflow however often it crashes
    }
    assertThat(backoff.next(SHORT)).isEqualTo(restart(108, 30));
  }

  @Test
  void aProcessThatStayedUpLongEnoughStartsTheCountAgain() {
    RestartBackoff backoff = new RestartBackoff();
    backoff.next(SHORT);
    backoff.next(SHORT);
    assertThat(backoff.next(Duration.ofSeconds(29))).isEqualTo(restart(3, 4));

    assertThat(backoff.next(Duration.ofSeconds(30))).isEqualTo(restart(1, 1));
    assertThat(backoff.next(SHORT)).isEqualTo(restart(2, 2));
  }

  @Test
  void otherDelays() {
    RestartBackoff backoff =
        new RestartBackoff(Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofSeconds(5));
    assertThat(backoff.next(Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.next(Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(200));
    assertThat(backoff.next(Duration.ZERO).delay()).isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> new RestartBackoff(Duration.ZERO, Duration.ofSeconds(1), SHORT))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static RestartBackoff.Restart restart(int attempt, long seconds) {
    return new RestartBackoff.Restart(attempt, Duration.ofSeconds(seconds));
  }
}
