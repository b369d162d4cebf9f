package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.admission.TenantAdmission;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Carries out a run's admission effects through {@link TenantAdmission} (part of the run's {@link
 * EffectHandler}, docs/adr/0073), shared by every run of the planner: {@link
 * RunEffect.AwaitAdmission} answers {@link RunCommand.Admitted} at once when the tenant has a free
 * slot, else {@link RunCommand.AdmissionQueued} with the reason, and {@link RunCommand.Admitted}
 * later, when a run that ends ({@link RunEffect.Close}) gives its slot to this one — as {@code
 * RunCoordinator.awaitAdmission} does.
 *
 * <p>Concurrency: thread-safe; each run's driver calls it from the run's thread, a waiter's answer
 * is enqueued from the thread of the run that freed the slot. One monitor orders a run's admission
 * against the releases (an answer only enqueues, it never waits).
 */
public final class AdmissionEffects {
  private final TenantAdmission admission;

  /** The runs waiting for a slot: how to tell each it has one. */
  private final Map<String, Consumer<RunCommand>> waiting = new ConcurrentHashMap<>();

  public AdmissionEffects(TenantAdmission admission) {
    this.admission = admission;
  }

  /**
   * Carries out {@code effect} when it is an admission effect ({@link RunEffect.Close} frees the
   * run's slot, and is also left to the other parts of the handler).
   *
   * @return true when the effect was {@link RunEffect.AwaitAdmission}
   */
  public boolean handle(RunEffect effect, RunState state, Consumer<RunCommand> reply) {
    String tenant = state.settings().tenant();
    switch (effect) {
      case RunEffect.AwaitAdmission a -> {
        awaitAdmission(tenant, state.runId(), reply);
        return true;
      }
      case RunEffect.Close c -> {
        waiting.remove(state.runId());
        admitted(admission.release(tenant, state.runId()));
        return false;
      }
      default -> {
        return false;
      }
    }
  }

  /**
   * Under the monitor, so that a slot freed meanwhile answers {@code Admitted} only after this
   * run's {@code AdmissionQueued}, never before it.
   */
  private synchronized void awaitAdmission(
      String tenant, String runId, Consumer<RunCommand> reply) {
    Optional<String> waitReason = admission.admit(tenant, runId);
    if (waitReason.isPresent()) {
      waiting.put(runId, reply);
      reply.accept(new RunCommand.AdmissionQueued(waitReason.get()));
    } else {
      reply.accept(new RunCommand.Admitted());
    }
  }

  private synchronized void admitted(List<String> runIds) {
    for (String id : runIds) {
      Consumer<RunCommand> reply = waiting.remove(id);
      if (reply != null) {
        reply.accept(new RunCommand.Admitted());
      }
    }
  }

  /** Whether the run waits for a slot (for tests). */
  public boolean waits(String runId) {
    return waiting.containsKey(runId);
  }
}
