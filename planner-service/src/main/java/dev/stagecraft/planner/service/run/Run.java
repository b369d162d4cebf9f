package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.apply.ApplySchedule;
import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanResult;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run's live state in this planner instance. Guarded by its own monitor: the run thread, the
 * Kafka listener threads and HTTP readers all synchronize on the run.
 */
public final class Run {
  final String id;
  final RunRequest request;
  final Instant createdAt;
  final RunJournal journal;
  final AtomicLong eventSequence = new AtomicLong();

  /** Where the run's transitions are recorded for readers, in order (docs/adr/0025). */
  final RecordingLane recording;

  final Map<String, Map<String, Object>> appliedAttributes = new LinkedHashMap<>();
  RunStatus status = RunStatus.PENDING;

  /** When the run reached its terminal status (null while active). */
  Instant endedAt;

  String message;
  String lockId;
  long fencingToken;

  /** The run's one-off state credential while it holds the lock (docs/adr/0013); a secret. */
  String runCredential;

  PlanResult planResult;
  Plan plan;
  String planText;
  ApplySchedule schedule;

  /** Dispatched actions not recorded yet, with their liveness (docs/adr/0007). */
  final InFlightActions inFlight = new InFlightActions();

  /** Why actions were cut (interrupted, never started), by address, for the run's message. */
  final Map<String, String> cutShort = new LinkedHashMap<>();

  /** Who canceled the run while it applied; non-null = dispatch nothing more. */
  String cancelRequestedBy;

  /** Host keys to enforce, read when the run starts, attached to every dispatched connection. */
  KnownHostKeys knownHostKeys = KnownHostKeys.NONE;

  /** Started again by a restarted planner instance ({@link RunCoordinator#resume}). */
  boolean resumed;

  /**
   * For a resumed run that awaited approval: the digest of the plan shown before the restart; the
   * plan made again must equal it (docs/adr/0029). Null otherwise.
   */
  String resumedPlanDigest;

  /**
   * For a run applying a plan approved as a whole (an approval, a saved plan, the serial the CLI
   * showed): {@link Plan#changeDocuments} of that plan, recorded with the run so that a planner
   * carrying it on after a restart can show that what remains is part of it (docs/adr/0051). Null
   * otherwise.
   */
  Map<String, String> approvedChanges;

  /**
   * For a run carried on while it applied an approved plan: the recorded digest of that plan, which
   * the run keeps showing (and recording) while it applies the rest of it (docs/adr/0051); the
   * rest's own plan has another digest. Null otherwise.
   */
  String approvedPlanDigest;

  /** The uploaded files, written out while the run plans and applies; deleted when it ends. */
  Path filesDir;

  Run(String id, RunRequest request, Instant createdAt, RunJournal journal) {
    this.id = id;
    this.request = request;
    this.createdAt = createdAt;
    this.journal = journal;
    this.recording = new RecordingLane(id);
  }

  /**
   * Records the run's transition numbered {@code sequence}: appended to its journal at once
   * (followers, Server-Sent Events), the observer's record queued on its recording lane after the
   * ones before (docs/adr/0025, 0073). Called in the order of the run's event sequence, by the
   * coordinator and by the run's effect handler ({@code run.driver.TransitionEffects}).
   */
  public void recordTransition(
      RunObserver observer, long sequence, RunStatus status, String message, Instant at) {
    journal.status(status, message);
    recording.submit(() -> observer.transitioned(this, sequence, status, message, at));
  }

  /**
   * The directory of the run's uploaded files, forgotten by the run: whoever takes it deletes it
   * (the coordinator, or {@code run.driver.CloseEffects} when the run ends). Null when there is
   * none or it was taken.
   */
  public synchronized Path takeFilesDir() {
    Path dir = filesDir;
    filesDir = null;
    return dir;
  }

  public String id() {
    return id;
  }

  public RunRequest request() {
    return request;
  }

  public RunJournal journal() {
    return journal;
  }

  /** See {@link #approvedChanges}: null unless the run applies a plan approved as a whole. */
  public synchronized Map<String, String> approvedChanges() {
    return approvedChanges;
  }

  public synchronized RunSummary summary() {
    return new RunSummary(
        id,
        request.tenant(),
        request.workspace(),
        status.wireName(),
        status.isTerminal(),
        message,
        approvedPlanDigest != null ? approvedPlanDigest : plan == null ? null : plan.digest(),
        planText,
        createdAt);
  }

  /** What the API shows of a run. */
  public record RunSummary(
      String id,
      String tenant,
      String workspace,
      String status,
      boolean terminal,
      String message,
      String planDigest,
      String planText,
      Instant createdAt) {}
}
