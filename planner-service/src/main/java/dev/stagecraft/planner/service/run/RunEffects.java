package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.dispatch.AppliedChecks;
import dev.stagecraft.planner.service.run.dispatch.RunDispatch;
import dev.stagecraft.planner.service.run.dispatch.RunOutputs;
import dev.stagecraft.planner.service.run.driver.AdmissionEffects;
import dev.stagecraft.planner.service.run.driver.CloseEffects;
import dev.stagecraft.planner.service.run.driver.EffectHandler;
import dev.stagecraft.planner.service.run.driver.LockEffects;
import dev.stagecraft.planner.service.run.driver.OpenEffects;
import dev.stagecraft.planner.service.run.driver.TransitionEffects;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The {@link EffectHandler} of one run (docs/adr/0070, 0073): hands each effect to the part that
 * carries it out — lock, admission, state service, transitions, the run's end, planning, dispatch —
 * and itself records the run's request, records the outputs of an applied run and wakes a run
 * waiting for approval when its approval expires. {@link RunEffect.Close} goes to every part that
 * keeps something per run.
 */
final class RunEffects implements EffectHandler {

  /** The parts shared by every run of the coordinator. */
  record Parts(
      LockEffects lock,
      AdmissionEffects admission,
      OpenEffects open,
      TransitionEffects transitions,
      CloseEffects close,
      RunPlanning planning,
      RunDispatch dispatch,
      WorkspaceStates states,
      SecretsKeyring secrets,
      RunRequestRecorder requestRecorder,
      ScheduledExecutorService timers,
      Supplier<Instant> brokerOutages,
      Clock clock) {}

  private final Parts parts;
  private final Run run;
  private final LockEffects.Holder holder;

  RunEffects(Parts parts, Run run) {
    this.parts = parts;
    this.run = run;
    RunRequest req = run.request;
    this.holder =
        new LockEffects.Holder(
            req.tenant(),
            req.workspace(),
            run.id,
            "stagecraft run " + run.id + " by " + req.requestedBy(),
            req.coalescingKey());
  }

  @Override
  public void handle(RunEffect effect, RunState state, Consumer<RunCommand> reply)
      throws Exception {
    boolean done =
        parts.lock().handle(effect, state, holder, reply)
            || parts.admission().handle(effect, state, reply)
            || parts.open().handle(effect, state, reply)
            || parts.transitions().handle(effect, state, this::record)
            || parts.close().handle(effect, state, run::takeFilesDir)
            || parts.planning().handle(effect, run, reply)
            || parts.dispatch().handle(effect, state, run, reply);
    if (done) {
      if (effect instanceof RunEffect.PublishTransition p && p.approvalExpiresAt() != null) {
        wakeAt(p.approvalExpiresAt(), reply);
      }
      return;
    }
    switch (effect) {
      case RunEffect.RecordRequest r -> recordRequest(state);
      case RunEffect.RecordOutputs r -> {
        String warnings =
            RunOutputs.record(run, state, parts.states(), parts.secrets())
                + AppliedChecks.messageSuffix(run);
        reply.accept(new RunCommand.OutputsRecorded(warnings));
      }
      case RunEffect.Close c -> {} // every part above saw it
      default -> throw new IllegalStateException("no part carries out " + effect);
    }
  }

  /**
   * The transition's record: already queued on the run's recording lane by {@link RunEventJournal},
   * with the read model, under the run's monitor (a reader never sees a status whose record is not
   * queued); nothing more to do here.
   */
  private void record(long sequence, RunStatus status, String message, Instant at) {}

  /** After the {@code pending} record, on the lane: durable before the start returns. */
  private void recordRequest(RunState state) {
    Run.Launch launch = run.launch().orElseThrow();
    RunRequestRecorder recorder = parts.requestRecorder();
    boolean awaitingApproval = state.settings().awaitingApproval();
    run.recording.submit(
        () -> recorder.record(run.id, launch.request(), awaitingApproval, launch.pendingMessage()));
  }

  /** A run waiting for approval is told the time once its approval expired. */
  private void wakeAt(Instant deadline, Consumer<RunCommand> reply) {
    long millis = Math.max(0, Duration.between(parts.clock().instant(), deadline).toMillis());
    parts
        .timers()
        .schedule(
            () ->
                reply.accept(
                    new RunCommand.Tick(parts.clock().instant(), parts.brokerOutages().get())),
            millis + 1,
            TimeUnit.MILLISECONDS);
  }
}
