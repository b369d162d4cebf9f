package dev.stagecraft.chaos.soak;

import java.time.Duration;
import java.util.function.Consumer;

/** Tries an action a few times, pausing twice as long after each failure. */
final class Backoff {
  /** An action that may fail. */
  @FunctionalInterface
  interface Action {
    void run() throws Exception;
  }

  private Backoff() {}

  /**
   * Runs {@code action} until it succeeds, at most {@code attempts} times, pausing {@code first},
   * then twice as long each time, between tries; each failure but the last goes to {@code failed},
   * the last is thrown.
   */
  static void attempt(int attempts, Duration first, Action action, Consumer<Exception> failed)
      throws Exception {
    Duration pause = first;
    for (int i = 1; ; i++) {
      try {
        action.run();
        return;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        if (i >= attempts) {
          throw e;
        }
        failed.accept(e);
      }
      Thread.sleep(pause); // a pause between tries of a failed start, not synchronization
      pause = pause.multipliedBy(2);
    }
  }
}
