package dev.stagecraft.planner.service.run;

import dev.stagecraft.language.config.LoadResult;
import dev.stagecraft.planner.apply.PlannedStep;
import dev.stagecraft.planner.plan.AttributeSealing;
import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanRenderer;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.planner.service.run.driver.OpenedRuns;
import dev.stagecraft.planner.service.run.lifecycle.PlanInfo;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.planner.service.run.recovery.CarriedActions;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * Carries out {@link RunEffect.Plan} (part of the run's effect handler, docs/adr/0070, 0073):
 * writes the run's files (or adopts those its configuration check prepared), plans against the
 * state the run opened with (sealed values opened, remote states read with the run's credential)
 * and answers {@link RunCommand.Planned} — for a carried-on run applying an approved plan, with why
 * the rest is not part of it ({@link CarriedActions#unapprovedRest}) — or {@link
 * RunCommand.PlanFailed} when the configuration is invalid. Planning runs on a virtual thread of
 * its own, so the run keeps taking commands (a cancel) meanwhile.
 */
final class RunPlanning {
  private final UploadedFiles uploads;
  private final WorkspaceStates states;
  private final SecretsKeyring secrets;
  private final OpenedRuns opened;
  private final Clock clock;

  RunPlanning(
      UploadedFiles uploads,
      WorkspaceStates states,
      SecretsKeyring secrets,
      OpenedRuns opened,
      Clock clock) {
    this.uploads = uploads;
    this.states = states;
    this.secrets = secrets;
    this.opened = opened;
    this.clock = clock;
  }

  /**
   * Starts planning when {@code effect} is {@link RunEffect.Plan}.
   *
   * @return false when it is not
   */
  boolean handle(RunEffect effect, Run run, Consumer<RunCommand> reply) {
    if (!(effect instanceof RunEffect.Plan plan)) {
      return false;
    }
    Thread.ofVirtual().name("plan-" + run.id).start(() -> reply.accept(plan(plan, run)));
    return true;
  }

  private RunCommand plan(RunEffect.Plan effect, Run run) {
    try {
      WorkspaceStates.OpenedRun openedRun =
          opened
              .of(run.id)
              .orElseThrow(() -> new IllegalStateException("the run is not opened at the state"));
      Run.Launch launch = run.launch().orElse(null);
      Path dir = files(run, launch);
      if (dir == null) {
        return new RunCommand.EffectFailed(effect, "the run ended before it planned");
      }
      RunRequest req = run.request;
      if (req.inputs().sourceFailure() != null) {
        // the workspace's source gave no configuration: the run fails here, nothing applied
        return new RunCommand.PlanFailed(
            "Error: Configuration source unavailable\n\n" + req.inputs().sourceFailure() + "\n");
      }
      // sealed attribute values are opened so the plan compares clear values (docs/adr/0024)
      PriorState prior =
          PriorState.fromV4Json(
              openedRun.stateV4Json(), AttributeSealing.of(secrets, req.tenant(), req.workspace()));
      PlanRequest request =
          new PlanRequest(
                  req.workspace(),
                  req.files(),
                  req.variables(),
                  req.replace(),
                  req.destroy(),
                  dir,
                  true,
                  req.hclVariables())
              .withSensitiveVariables(req.inputs().sensitiveVariables())
              .withEnvironment(req.inputs().environment(), req.inputs().sensitiveEnvironment());
      LoadResult parsed =
          launch == null || launch.prepared() == null
              ? Planner.parse(req.files())
              : launch.prepared().parsed();
      // remote states are read now, with the run's own credential: planning stays pure
      // (docs/planning.md "Remote state", ADR 0063)
      request =
          RemoteStateReads.read(
              request, parsed, states, req.tenant(), openedRun.runCredential(), secrets);
      PlanResult result = Planner.plan(request, prior, parsed);
      run.planResult = result;
      if (result.hasErrors()) {
        return new RunCommand.PlanFailed(result.renderDiagnostics());
      }
      return new RunCommand.Planned(
          info(result.plan(), req.inputs().describeUses()),
          prior.serial(),
          restNotApproved(run, result.plan()),
          clock.instant());
    } catch (RuntimeException e) {
      return new RunCommand.EffectFailed(effect, String.valueOf(e.getMessage()));
    }
  }

  /**
   * The directory of the run's files: the apply context reads provisioner files (script, source,
   * key_file) when it dispatches, so it lives until the run ends ({@code Close} deletes it); a
   * prepared one was written by the request's configuration check (docs/adr/0025).
   *
   * @return null when the run ended meanwhile
   */
  private Path files(Run run, Run.Launch launch) {
    if (launch == null || launch.prepared() != null) {
      run.launched();
      return run.filesDir();
    }
    RunRequest req = launch.request();
    Path dir = uploads.materialise(req.tenant(), req.files(), req.supportFiles());
    run.keepFilesDir(dir);
    run.launched();
    RunState state = run.state();
    if (state != null && state.isTerminal()) {
      UploadedFiles.delete(run.takeFilesDir()); // ended meanwhile: Close may have come first
      return null;
    }
    return dir;
  }

  /** Why the rest of a carried-on run's approved plan is not part of it, or null when it is. */
  private static String restNotApproved(Run run, Plan plan) {
    CarriedActions carried = run.carried;
    if (carried == null || !carried.approvalBound()) {
      return null;
    }
    return carried.unapprovedRest(plan.changeDocuments()).orElse(null);
  }

  /**
   * What the lifecycle knows of the plan: its steps as {@link PlannedStep#stepsOf} makes them; its
   * text followed by {@code variables} (where each variable came from, when not all from the
   * request).
   */
  static PlanInfo info(Plan plan, String variables) {
    String text = PlanRenderer.render(plan);
    return new PlanInfo(
        plan.digest(),
        plan.applies(),
        variables.isEmpty() ? text : text + (text.endsWith("\n") ? "\n" : "\n\n") + variables,
        PlanRenderer.summary(plan),
        plan.toAdd(),
        plan.toChange(),
        plan.toDestroy(),
        PlannedStep.stepsOf(plan));
  }
}
