package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.recovery.DispatchedActions;
import dev.stagecraft.planner.service.run.recovery.RecoveryCause;
import dev.stagecraft.planner.service.run.recovery.RestartRecovery;
import dev.stagecraft.planner.service.run.recovery.ResumableRun;
import dev.stagecraft.platform.kafka.KafkaSettings;
import io.micronaut.context.annotation.Context;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At startup, carries on the runs this planner instance ({@code STAGECRAFT_INSTANCE_ID}) was
 * driving when it stopped (docs/runs.md "Restart", docs/adr/0029): each unfinished run is either
 * started again from its recorded request ({@link RunCoordinator#resume}) or ended {@code errored}
 * with the reason ({@link RestartRecovery}), so no run is left non-terminal. Runs are resumed
 * oldest first, before the HTTP server accepts new runs, after the Kafka listeners joined (a
 * resumed run that applies needs them), and after the instance registered as alive ({@link
 * PlannerInstances}), so no other instance adopts them meanwhile. Then it carries on, the same way,
 * the runs {@link PlannerInstances} adopts from instances whose lease expired (docs/adr/0034).
 */
@Context
final class RunRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(RunRecovery.class);

  /** Dispatch timestamps come from the producer's clock: read a little earlier than needed. */
  private static final Duration CLOCK_MARGIN = Duration.ofMinutes(5);

  RunRecovery(
      PlannerSettings settings,
      RunStore runs,
      RunRequestStore requests,
      RunCoordinator coordinator,
      KafkaSettings kafka,
      PlannerBeans.Listeners listenersStarted,
      PlannerInstances instances)
      throws SQLException {
    recover(
        new RecoveryCause.Restart(settings.getInstanceId()),
        runs.unfinished(),
        runs,
        requests,
        coordinator,
        new KafkaDispatchedActions(kafka, settings.getInstanceId() + "-recovery"));
    instances.startAdopting(
        (cause, adopted) ->
            recover(
                cause,
                adopted,
                runs,
                requests,
                coordinator,
                new KafkaDispatchedActions(kafka, settings.getInstanceId() + "-adoption")));
  }

  /**
   * Decides and carries out the fate of every run of {@code unfinished} (this instance's own after
   * a restart, or those just adopted, oldest first); returns how many were resumed.
   */
  static int recover(
      RecoveryCause cause,
      List<RunStore.UnfinishedRun> unfinished,
      RunStore runs,
      RunRequestStore requests,
      RunCoordinator coordinator,
      DispatchedActions dispatches)
      throws SQLException {
    if (unfinished.isEmpty()) {
      return 0;
    }
    // null: cannot tell which runs dispatched, so none that might have is resumed
    Set<String> dispatched = runsWithDispatches(unfinished, dispatches);
    int resumed = 0;
    for (RunStore.UnfinishedRun run : unfinished) {
      try {
        if (recoverOne(cause, run, runs, requests, coordinator, dispatches, dispatched)) {
          resumed++;
        }
      } catch (SQLException | RuntimeException e) {
        LOG.warn("could not resume run {}: {}", run.id(), e.toString());
        end(runs, coordinator, run, cause.couldNotResumeMessage(run.status(), e.getMessage()));
      }
    }
    return resumed;
  }

  /**
   * The runs among {@code unfinished} that dispatched actions, as found on stagecraft.actions; null
   * when they cannot be read.
   */
  private static Set<String> runsWithDispatches(
      List<RunStore.UnfinishedRun> unfinished, DispatchedActions dispatches) {
    try {
      return dispatches.runsWithDispatches(
          unfinished.stream().map(RunStore.UnfinishedRun::id).toList(),
          unfinished.stream()
              .map(RunStore.UnfinishedRun::createdAt)
              .min(Instant::compareTo)
              .orElseThrow()
              .minus(CLOCK_MARGIN));
    } catch (RuntimeException e) {
      LOG.warn("could not read the dispatched actions; no run is resumed: {}", e.toString());
      return null;
    }
  }

  /**
   * Decides and carries out the fate of one unfinished run; true when it was resumed or carried on.
   *
   * @param dispatched the runs that dispatched actions; null: not known
   */
  private static boolean recoverOne(
      RecoveryCause cause,
      RunStore.UnfinishedRun run,
      RunStore runs,
      RunRequestStore requests,
      RunCoordinator coordinator,
      DispatchedActions dispatches,
      Set<String> dispatched)
      throws SQLException {
    boolean dispatchesKnown = dispatched != null;
    Optional<RunRequestStore.Recorded> recorded = requests.find(run.tenant(), run.id());
    boolean awaitingApproval =
        recorded.map(RunRequestStore.Recorded::awaitingApproval).orElse(false);
    String planDigest =
        run.status() == RunStatus.PLANNED && awaitingApproval ? run.planDigest() : null;
    RestartRecovery.Decision decision =
        RestartRecovery.decide(
            new RestartRecovery.Facts(
                cause.previousOwner(),
                run.status(),
                recorded.isPresent(),
                recorded.map(RunRequestStore.Recorded::variablesComplete).orElse(false),
                awaitingApproval,
                !dispatchesKnown || dispatched.contains(run.id()),
                planDigest,
                dispatchesKnown));
    switch (decision) {
      case RestartRecovery.Decision.Resume r -> {
        coordinator.resume(
            new ResumableRun(
                run.id(),
                recorded.get().request(),
                awaitingApproval,
                run.createdAt(),
                run.lastSequence(),
                planDigest,
                planDigest == null ? null : run.plannedAt()),
            cause.resumedMessage(run.status()));
        LOG.info("resumed run {} (was {})", run.id(), run.status().wireName());
        return true;
      }
      case RestartRecovery.Decision.CarryOn c -> {
        // what it dispatched, as found on stagecraft.actions (docs/adr/0035)
        coordinator.carryOn(
            new ResumableRun(
                run.id(),
                recorded.get().request(),
                awaitingApproval,
                run.createdAt(),
                run.lastSequence(),
                // the digest recorded when it planned (kept by an approved run, ADR 0051)
                run.planDigest(),
                null,
                run.approvedChanges()),
            dispatches.dispatchesOf(run.id()),
            cause.reword(RestartRecovery.carriedOnMessage(cause.previousOwner(), run.status())));
        LOG.info("carried on run {} (was {})", run.id(), run.status().wireName());
        return true;
      }
      case RestartRecovery.Decision.Fail f -> {
        String message = cause.reword(f.message());
        end(runs, coordinator, run, message);
        LOG.warn("run {} (was {}) ended errored: {}", run.id(), run.status().wireName(), message);
        return false;
      }
    }
  }

  /**
   * Ends {@code run} {@code errored} with {@code message}: recorded, then announced on the
   * run-events topic like every transition, so a bot that posted the run's start posts its end.
   */
  private static void end(
      RunStore runs, RunCoordinator coordinator, RunStore.UnfinishedRun run, String message)
      throws SQLException {
    OptionalLong sequence = runs.endUnfinished(run, message);
    if (sequence.isPresent()) {
      coordinator.announceEnded(
          run.tenant(), run.workspace(), run.id(), sequence.getAsLong(), message);
    }
  }
}
