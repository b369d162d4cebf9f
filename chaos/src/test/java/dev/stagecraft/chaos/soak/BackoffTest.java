package dev.stagecraft.chaos.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void aFailingStartIsTriedAgainUntilItSucceeds() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    List<String> failures = new ArrayList<>();
    Backoff.attempt(
        5,
        Duration.ofMillis(1),
        () -> {
          if (tries.incrementAndGet() < 3) {
            throw new IllegalStateException("planner-2 exited with code 1 while starting");
          }
        },
        e -> failures.add(e.getMessage()));
    assertThat(tries).hasValue(3);
    assertThat(failures).hasSize(2);
  }

  @Test
  void theLastFailureIsTheCallersAfterTheAttempts() {
    AtomicInteger tries = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Backoff.attempt(
                    3,
                    Duration.ofMillis(1),
                    () -> {
                      throw new IllegalStateException("try " + tries.incrementAndGet());
                    },
                    e -> {}))
        .hasMessage("try 3");
    assertThat(tries).hasValue(3);
  }
}
