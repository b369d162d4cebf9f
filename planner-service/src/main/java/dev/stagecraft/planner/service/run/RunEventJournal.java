package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.driver.RunDriver;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.planner.service.run.journal.RunObserver;
import dev.stagecraft.planner.service.run.lifecycle.CarriedAction;
import dev.stagecraft.planner.service.run.lifecycle.CarriedOver;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a run's decisions ({@link RunDriver.Listener}): writes what happened to the run's {@link
 * RunJournal} (its transitions, the outcome of each action, what a cancel or a restart did) in the
 * order the events happened, refreshes the run's read model ({@link Run#refresh}) and queues each
 * transition's record on the run's recording lane (the {@link RunObserver}) — all three under the
 * run's monitor, as one step: a reader that sees the run in a status (the API, which first waits
 * for the lane) never sees it before that status's record is queued, and the record, when it runs,
 * reads the refreshed run (docs/adr/0025, 0077). Called on the run's driver thread, before the
 * decision's effects are carried out, so a transition is in the journal and queued for its record
 * before its {@code run.transitioned} is published and before the dispatches that follow it.
 */
final class RunEventJournal implements RunDriver.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(RunEventJournal.class);

  private final Run run;
  private final RunObserver observer;
  private final Clock clock;

  RunEventJournal(Run run, RunObserver observer, Clock clock) {
    this.run = run;
    this.observer = observer;
    this.clock = clock;
  }

  @Override
  public void decided(List<RunEvent> events, RunState before, RunState after) {
    Instant at = clock.instant();
    synchronized (run) {
      for (RunEvent event : events) {
        journal(event, before, after);
        if (event instanceof RunEvent.Transitioned t) {
          run.recording.submit(
              () -> observer.transitioned(run, t.sequence(), t.to(), t.message(), at));
        }
      }
      run.refresh(after, at);
    }
  }

  private void journal(RunEvent event, RunState before, RunState after) {
    RunJournal journal = run.journal;
    switch (event) {
      case RunEvent.Transitioned t -> journal.status(t.to(), t.message());
      case RunEvent.ApplyScheduled s -> keepApprovedChanges(after);
      case RunEvent.ActionEnded e -> journal.action(e.address(), e.detail());
      case RunEvent.CarriedActionRecorded r -> journal.action(r.address(), r.detail());
      case RunEvent.ActionAbandoned a -> journal.action(a.address(), "failed: " + a.why());
      case RunEvent.ActionDropped d ->
          journal.action(d.address(), "not started: the run was canceled");
      case RunEvent.CancelRecorded c ->
          journal.action(
              run.id,
              "canceling: stopping "
                  + before.startedUnrecorded()
                  + " running action(s), dispatching nothing more");
      case RunEvent.CarriedTracked c -> carriedTracked(after.carried());
      case RunEvent.ActionInterrupted i ->
          LOG.warn("run {}: {} interrupted: {}", run.id, i.address(), i.why());
      default -> {}
    }
  }

  /**
   * Recorded with the applying transition: a planner carrying the run on after a restart applies
   * the rest only when it is part of the approved plan (docs/adr/0051).
   */
  private void keepApprovedChanges(RunState after) {
    if (run.carried != null) {
      run.approvedChanges(run.carried.approvedChanges());
      return;
    }
    boolean approvedAsWhole =
        after.approvedBy() != null
            || after.settings().expectedSerial() != null
            || after.settings().expectedDigest() != null;
    if (approvedAsWhole && run.planResult != null) {
      run.approvedChanges(run.planResult.plan().changeDocuments());
    }
  }

  private void carriedTracked(CarriedOver carried) {
    for (CarriedAction a : carried.unfinished()) {
      run.journal.action(a.address(), "still running when its planner instance stopped");
    }
    for (String done : carried.finishedWithOutcomes()) {
      run.journal.action(run.id, "finished before its planner instance stopped: " + done);
    }
  }
}
