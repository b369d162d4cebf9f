package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.WorkspaceStates;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Carries out a run's state-service effects through {@link WorkspaceStates} (part of the run's
 * {@link EffectHandler}, docs/adr/0073), as {@code RunCoordinator.openRun}, {@code
 * revokeRunCredential} and {@code awaitCarried} do: {@link RunEffect.OpenRun} opens the run in one
 * call (fencing token, credential, host keys, state; docs/adr/0025), keeps what it opened with in
 * {@link OpenedRuns} and answers {@link RunCommand.Opened} (with no credential when the state
 * service mints none); {@link RunEffect.RevokeCredential} revokes it ({@link
 * CredentialRevocation}); {@link RunEffect.ReadCarriedOutcomes} answers {@link
 * RunCommand.CarriedOutcomesRead}; {@link RunEffect.Close} forgets what the run opened with. A
 * failing call throws: the driver decides {@link RunCommand.EffectFailed}, which ends the run as
 * the coordinator does.
 *
 * <p>Each call is one HTTP request made on the run's thread, as the coordinator makes it on the
 * run's: a cancel arriving meanwhile is decided right after the answer (an opened run that ended
 * meanwhile has its credential revoked by the decider's {@code RevokeCredential}).
 */
public final class OpenEffects {
  private final WorkspaceStates states;
  private final OpenedRuns opened;
  private final Clock clock;

  public OpenEffects(WorkspaceStates states, OpenedRuns opened, Clock clock) {
    this.states = states;
    this.opened = opened;
    this.clock = clock;
  }

  /**
   * Carries out {@code effect} when it is a state-service effect ({@link RunEffect.Close} is also
   * left to the other parts of the handler).
   *
   * @return true when the effect was one of this part's
   */
  public boolean handle(RunEffect effect, RunState state, Consumer<RunCommand> reply) {
    RunSettings s = state.settings();
    switch (effect) {
      case RunEffect.OpenRun o -> {
        WorkspaceStates.OpenedRun run =
            states.openRun(s.tenant(), s.workspace(), state.runId(), o.fencingToken());
        opened.keep(state.runId(), run);
        String credential = run.runCredential();
        reply.accept(
            new RunCommand.Opened(credential == null ? null : new RunCredential(credential)));
        return true;
      }
      case RunEffect.RevokeCredential r -> {
        CredentialRevocation.revoke(states, s.tenant(), s.workspace(), state.runId());
        return true;
      }
      case RunEffect.ReadCarriedOutcomes r -> {
        Map<String, String> outcomes =
            states.recordedOutcomes(s.tenant(), s.workspace(), state.runId());
        reply.accept(new RunCommand.CarriedOutcomesRead(outcomes, clock.instant()));
        return true;
      }
      case RunEffect.Close c -> {
        opened.forget(state.runId());
        return false;
      }
      default -> {
        return false;
      }
    }
  }
}
