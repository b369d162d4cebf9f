package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;

/**
 * Where a run marks the points of its trace (docs/adr/0083): its thread's lifetime and each effect
 * it carries out (lock, open, plan, dispatch). The adapter decides what a mark is (a span); {@link
 * #NONE} does nothing. Called on the run's thread only; implementations must be thread-safe across
 * runs.
 */
public interface RunTracing {
  /** A mark in progress; {@link #close} ends it, on the thread that opened it. */
  interface Mark extends AutoCloseable {
    @Override
    void close();
  }

  Mark NO_MARK = () -> {};

  RunTracing NONE =
      new RunTracing() {
        @Override
        public Mark enter(String tenant, String workspace, String runId) {
          return NO_MARK;
        }

        @Override
        public Mark effect(RunEffect effect, RunState state) {
          return NO_MARK;
        }
      };

  /**
   * Called on the thread that starts the run (an API request's, a trigger's), before the run's
   * thread starts: what it returns is the run thread's body, so an implementation may carry what it
   * knows of the trigger to {@link #enter}. By default the body itself.
   */
  default Runnable carry(Runnable body) {
    return body;
  }

  /** The run's thread starts deciding its commands (until the mark is closed). */
  Mark enter(String tenant, String workspace, String runId);

  /** The run's thread carries out {@code effect} (until the mark is closed). */
  Mark effect(RunEffect effect, RunState state);
}
