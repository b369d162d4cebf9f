package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.util.function.Consumer;

/**
 * Carries out a run's {@link RunEffect}s through the ports (lock, state service, outbox, records,
 * admission). Called by the run's {@link RunDriver} on the run's one thread, one effect at a time,
 * in the order the decider asked for them.
 *
 * <p>An effect whose answer takes long (planning, waiting in the lock queue, admission) should be
 * started on a thread of its own and answered through {@code reply} ({@link RunDriver#enqueue}), so
 * the run keeps taking commands (a cancel) meanwhile. A handler that throws has the driver decide
 * {@link RunCommand.EffectFailed} next; it never stops the driver.
 */
@FunctionalInterface
public interface EffectHandler {
  /**
   * @param state the run's state after the decision that asked for the effect
   * @param reply enqueues the effect's answer as a command of the run
   */
  void handle(RunEffect effect, RunState state, Consumer<RunCommand> reply) throws Exception;
}
