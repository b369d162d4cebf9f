package dev.stagecraft.planner.service.run.dispatch;

import dev.stagecraft.planner.apply.ActionResolution;
import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.service.run.EventOutbox;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.driver.OpenedRuns;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.DispatchSealing;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Carries out what a run publishes on the action and control topics (part of the run's effect
 * handler, docs/adr/0070, 0073): {@link RunEffect.Dispatch} resolves each action's steps with the
 * apply context (the values applied so far), seals what must not travel in clear and publishes
 * {@code action.dispatched} with the run's fencing token and credential — an action whose steps do
 * not resolve is answered {@link RunCommand.DispatchFailed}; {@link RunEffect.ReportInterrupted}
 * publishes {@code action.finished} {@code interrupted} on a silent executor's behalf (an envelope
 * id derived from the action id, so the state service records it once and a late real outcome
 * loses); {@link RunEffect.BroadcastCancel} publishes {@code run.cancel-requested}.
 *
 * <p>Concurrency: called by each run's driver thread; per-run data lives in the {@link Run}.
 */
public final class RunDispatch {
  private final EventCodec codec;
  private final EventOutbox outbox;
  private final SecretsKeyring secrets;
  private final OpenedRuns opened;
  private final Clock clock;
  private final Supplier<String> ids;

  public RunDispatch(
      EventCodec codec,
      EventOutbox outbox,
      SecretsKeyring secrets,
      OpenedRuns opened,
      Clock clock,
      Supplier<String> ids) {
    this.codec = codec;
    this.outbox = outbox;
    this.secrets = secrets;
    this.opened = opened;
    this.clock = clock;
    this.ids = ids;
  }

  /**
   * Carries out {@code effect} when it is one of this part's.
   *
   * @return false when it is not
   */
  public boolean handle(RunEffect effect, RunState state, Run run, Consumer<RunCommand> reply) {
    switch (effect) {
      case RunEffect.Dispatch d -> dispatch(d, state, run, reply);
      case RunEffect.ReportInterrupted r -> reportInterrupted(r, state, run);
      case RunEffect.BroadcastCancel c -> {
        EventEnvelope cancel =
            codec.wrap(
                run.request().tenant(),
                run.request().workspace(),
                run.id(),
                c.sequence(),
                run.id(),
                new RunCancelRequested(run.id(), c.reason()));
        outbox.publish(cancel, cancel.workspaceKey());
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  private void dispatch(RunEffect.Dispatch d, RunState state, Run run, Consumer<RunCommand> reply) {
    PlanResult result = run.planResult();
    KnownHostKeys hostKeys = opened.of(run.id()).map(o -> o.hostKeys()).orElse(KnownHostKeys.NONE);
    String credential = credential(state);
    List<EventEnvelope> out = new ArrayList<>();
    List<RunCommand> failed = new ArrayList<>();
    for (RunEffect.DispatchAction a : d.actions()) {
      PlannedAction action =
          result.plan().changes().stream()
              .filter(c -> c.address().equals(a.address()))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no action for " + a.address()));
      ActionResolution resolution;
      synchronized (run) {
        resolution = result.applyContext().resolve(action, run.appliedAttributes(), ids);
        if (!resolution.hasErrors()) {
          run.appliedAttributes().put(action.address(), resolution.attributes());
        }
      }
      if (resolution.hasErrors()) {
        failed.add(
            new RunCommand.DispatchFailed(
                a.address(), resolution.renderDiagnostics(), clock.instant()));
        continue;
      }
      if (!resolution.diagnostics().list().isEmpty()) {
        // warnings found while resolving the steps (a bastion_* or proxy_* setting without its
        // host, say) reach the run log; they change nothing
        run.journal().action(action.address(), "warning: " + resolution.renderDiagnostics());
      }
      ActionDispatched dispatched =
          dispatched(run, action, resolution, hostKeys, d.fencingToken(), credential);
      out.add(
          codec.wrapWithId(
              dispatched.actionId(),
              run.request().tenant(),
              run.request().workspace(),
              run.id(),
              a.sequence(),
              action.address(),
              dispatched));
      run.dispatches().put(dispatched.actionId(), dispatched);
      run.journal()
          .action(
              action.address(),
              action.previousAddress() == null
                  ? action.wireAction() + " dispatched"
                  : action.wireAction()
                      + " dispatched (moved from "
                      + action.previousAddress()
                      + ")");
    }
    outbox.publishAll(
        out.stream().map(e -> new EventOutbox.Keyed(e, e.runid() + "/" + e.subject())).toList());
    failed.forEach(reply);
  }

  /** The {@code action.dispatched} of a resolved action, sealed as the keyring allows. */
  private ActionDispatched dispatched(
      Run run,
      PlannedAction action,
      ActionResolution resolution,
      KnownHostKeys hostKeys,
      long fencingToken,
      String credential) {
    RunRequest req = run.request();
    ActionDispatched dispatched =
        new ActionDispatched(
                run.id(),
                run.id() + "/" + action.address(),
                action.address(),
                action.type(),
                action.wireAction(),
                // sensitive values in attributes travel and land in state only sealed (ADR 0024)
                AttributeSealing.of(secrets, req.tenant(), req.workspace())
                    .seal(action.address(), resolution.attributes(), resolution.sensitivePaths()),
                action.dependencies(),
                hostKeys.attachTo(
                    StepTimeouts.withDefault(resolution.steps(), req.stepTimeoutSeconds())),
                fencingToken,
                resolution.sensitiveValues(),
                action.createBeforeDestroy(),
                action.skipDestroy())
            .withRunCredential(credential)
            .withPreviousAddress(action.previousAddress());
    if (secrets.canSeal()) {
      // design §8: commands, environments and keys with secrets in them never go out in clear
      dispatched = DispatchSealing.seal(dispatched, secrets, req.tenant(), req.workspace());
    }
    return dispatched;
  }

  private void reportInterrupted(RunEffect.ReportInterrupted r, RunState state, Run run) {
    ActionDispatched d = run.dispatches().get(r.actionId());
    if (d == null) {
      throw new IllegalStateException("no dispatch known for " + r.actionId());
    }
    ActionFinished finished =
        new ActionFinished(
                d.runId(),
                d.actionId(),
                d.address(),
                d.resourceType(),
                d.action(),
                ActionFinished.INTERRUPTED,
                null,
                r.error(),
                d.attributes(),
                d.dependencies(),
                d.fencingToken(),
                r.executorId(),
                d.createBeforeDestroy(),
                d.skipDestroy())
            .withPreviousAddress(d.previousAddress())
            .provenWith(credential(state));
    EventEnvelope envelope =
        codec.wrapWithId(
            "interrupted-" + r.actionId(),
            run.request().tenant(),
            run.request().workspace(),
            run.id(),
            r.sequence(),
            r.address(),
            finished);
    outbox.publishAll(List.of(new EventOutbox.Keyed(envelope, envelope.workspaceKey())));
  }

  private static String credential(RunState state) {
    RunCredential credential = state.credential();
    return credential == null ? null : credential.value();
  }
}
