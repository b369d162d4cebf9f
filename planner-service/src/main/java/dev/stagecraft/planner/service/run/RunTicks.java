package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.lifecycle.Decision;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the coordinator's lease timer does to this instance's runs: tells each active run the time
 * ({@link RunCommand.Tick}: action and dispatch leases, approval deadlines) and forgets the runs
 * that ended a while ago (docs/adr/0044).
 *
 * <p>Concurrency: called by the timer thread (and tests); each tick is decided by the run's driver.
 */
final class RunTicks {
  private static final Logger LOG = LoggerFactory.getLogger(RunTicks.class);

  private final Map<String, Run> runs;
  private final Clock clock;

  RunTicks(Map<String, Run> runs, Clock clock) {
    this.runs = runs;
    this.clock = clock;
  }

  /**
   * Drops from memory every run that ended at least the retention ago and whose records are all
   * written (its recording lane is idle), so a planner that has been up for a long time holds only
   * its active and recently ended runs, not every run it ever drove. A dropped run is read from the
   * store from then on, as a run another instance drove is ({@code RunCoordinator#find} returns
   * empty; the API falls back to the run's records and recorded journal, docs/runs.md). Called by
   * the lease timer after {@link #tick}.
   */
  void forgetEnded(Duration endedRunRetention) {
    Instant before = clock.instant().minus(endedRunRetention);
    for (Run run : runs.values()) {
      synchronized (run) {
        if (run.endedAt == null || run.endedAt.isAfter(before) || run.recording.pending() > 0) {
          continue;
        }
      }
      runs.remove(run.id, run);
    }
  }

  /**
   * Tells every active run the time ({@link RunCommand.Tick}): the decider reports each silent
   * started action {@code interrupted} (an {@code action.finished} published for its executor),
   * fails every action no executor started within the dispatch lease and discards a run whose
   * approval expired. Called by the lease timer, which waits for the runs' decisions.
   */
  void tick(Instant lastBrokerOutage) {
    RunCommand.Tick tick = new RunCommand.Tick(clock.instant(), lastBrokerOutage);
    List<Run> ticked = new ArrayList<>();
    List<CompletableFuture<Decision>> answers = new ArrayList<>();
    for (Run run : runs.values()) {
      RunState state = run.state();
      if (state != null && !state.isTerminal()) {
        ticked.add(run);
        answers.add(run.enqueue(tick));
      }
    }
    for (int i = 0; i < answers.size(); i++) {
      try {
        answers.get(i).get(Run.ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        LOG.warn("run {}: the lease check was not decided: {}", ticked.get(i).id, e.toString());
      }
    }
  }
}
