package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.service.run.driver.RunDriver;
import dev.stagecraft.planner.service.run.journal.RecordingLane;
import dev.stagecraft.planner.service.run.journal.RunJournal;
import dev.stagecraft.planner.service.run.lifecycle.Decision;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.planner.service.run.recovery.CarriedActions;
import dev.stagecraft.schemas.action.ActionDispatched;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run in this planner instance: what its effect handler keeps beside the lifecycle's {@link
 * RunState} (its request, files, plan result, applied values, dispatches), and the read model the
 * API shows, refreshed from the state after each of its driver's decisions ({@link #refresh}). Only
 * the run's {@link RunDriver} changes the run's lifecycle; readers on other threads see the fields
 * as of the last decision.
 */
public final class Run {
  private static final Logger LOG = LoggerFactory.getLogger(Run.class);

  /** How long a request or event waits for the run's decision before it gives up. */
  static final Duration ANSWER_WAIT = Duration.ofSeconds(30);

  final String id;
  final RunRequest request;
  final Instant createdAt;
  final RunJournal journal;

  /** Where the run's transitions are recorded for readers, in order (docs/adr/0025). */
  final RecordingLane recording;

  /** The values each dispatched action was resolved with, by address (guarded by the run). */
  final Map<String, Map<String, Object>> appliedAttributes = new LinkedHashMap<>();

  /** What each action carried when it was dispatched (also before a restart), by action id. */
  final Map<String, ActionDispatched> dispatches = new ConcurrentHashMap<>();

  /** What the run was started with, until its request is recorded and its files written. */
  private volatile Launch launch;

  /** For a run carried on after a restart (docs/adr/0035): what it dispatched before; else null. */
  final CarriedActions carried;

  volatile PlanResult planResult;
  volatile RunDriver driver;
  private volatile RunState state;

  // the read model, as of the last decision (guarded by the run's monitor)
  RunStatus status = RunStatus.PENDING;
  String message;
  Plan plan;
  String planText;

  /** When the run reached its terminal status (null while active). */
  Instant endedAt;

  /**
   * For a run applying a plan approved as a whole (an approval, a saved plan, the serial the CLI
   * showed): {@link Plan#changeDocuments} of that plan, recorded with the run so that a planner
   * carrying it on after a restart can show that what remains is part of it (docs/adr/0051). Null
   * otherwise.
   */
  Map<String, String> approvedChanges;

  /** The uploaded files, written out while the run plans and applies; deleted when it ends. */
  Path filesDir;

  /**
   * What a run was started with beyond its request's settings.
   *
   * @param request the request, supporting files included (recorded, then written out)
   * @param prepared what the request's configuration check prepared, or null
   * @param pendingMessage the message of its {@code pending} transition
   */
  record Launch(RunRequest request, PreparedConfiguration prepared, String pendingMessage) {}

  /** A run known by its request only (not started by this instance: records, views). */
  Run(String id, RunRequest request, Instant createdAt, RunJournal journal) {
    this(id, request, createdAt, journal, null, null);
  }

  Run(
      String id,
      RunRequest request,
      Instant createdAt,
      RunJournal journal,
      Launch launch,
      CarriedActions carried) {
    this.id = id;
    this.request = request.withoutSupportFiles();
    this.createdAt = createdAt;
    this.journal = journal;
    this.recording = new RecordingLane(id);
    this.launch = launch;
    this.carried = carried;
    if (launch != null && launch.prepared() != null) {
      filesDir = launch.prepared().directory(); // deleted when the run ends, however it ends
    }
  }

  /** What the run was started with; empty once its files are written. */
  Optional<Launch> launch() {
    return Optional.ofNullable(launch);
  }

  void launched() {
    launch = null;
  }

  /**
   * Takes the read model from the state after a decision of the run's driver (its events already
   * journaled by {@link RunEventJournal}).
   */
  synchronized void refresh(RunState after, Instant at) {
    state = after;
    status = after.status();
    message = after.message();
    if (after.plan() != null) {
      planText = after.plan().text();
      PlanResult result = planResult;
      if (result != null && result.plan() != null) {
        plan = result.plan();
      }
    }
    if (after.isTerminal() && endedAt == null) {
      endedAt = at;
    }
  }

  /**
   * Enqueues {@code command} for the run's driver and waits (at most {@link #ANSWER_WAIT}) for its
   * decision; on the run's own thread (an event its own effect caused) it is decided next, and null
   * is returned.
   *
   * @throws IllegalStateException when the run did not decide in time
   */
  Decision decide(RunCommand command) {
    CompletableFuture<Decision> answer = driver.enqueue(command);
    if (driver.onRunThread()) {
      return answer.getNow(null);
    }
    try {
      return answer.get(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while run " + id + " decided", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("run " + id + " could not decide " + command, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "run " + id + " did not decide " + command + " within " + ANSWER_WAIT, e);
    }
  }

  /**
   * Enqueues {@code command} and waits (at most {@link #ANSWER_WAIT}) until it is decided, without
   * failing when it is not: a run blocked on a slow service call decides it later, in order (an
   * event, a cancel). On the run's own thread it does not wait.
   */
  void tell(RunCommand command) {
    CompletableFuture<Decision> answer = driver.enqueue(command);
    if (driver.onRunThread()) {
      return;
    }
    try {
      answer.get(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.warn("run {}: deciding {} failed: {}", id, command, e.getCause().toString());
    } catch (TimeoutException e) {
      LOG.warn("run {}: {} not decided within {}; it is decided in turn", id, command, ANSWER_WAIT);
    }
  }

  /** Enqueues {@code command} for the run's driver without waiting (a sign of life, in order). */
  CompletableFuture<Decision> enqueue(RunCommand command) {
    return driver.enqueue(command);
  }

  /** The run's lifecycle state as of its driver's last decision. */
  RunState state() {
    return state;
  }

  /**
   * The directory of the run's uploaded files, forgotten by the run: whoever takes it deletes it
   * ({@code run.driver.CloseEffects} when the run ends, the coordinator at shutdown). Null when
   * there is none or it was taken.
   */
  public synchronized Path takeFilesDir() {
    Path dir = filesDir;
    filesDir = null;
    return dir;
  }

  synchronized void keepFilesDir(Path dir) {
    filesDir = dir;
  }

  synchronized Path filesDir() {
    return filesDir;
  }

  /** The plan the run made and its apply context; null before it planned. */
  public PlanResult planResult() {
    return planResult;
  }

  /**
   * The values each dispatched action was resolved with, by address: read and written only while
   * holding the run's monitor.
   */
  public Map<String, Map<String, Object>> appliedAttributes() {
    return appliedAttributes;
  }

  /** What each action carried when it was dispatched (also before a restart), by action id. */
  public Map<String, ActionDispatched> dispatches() {
    return dispatches;
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

  synchronized void approvedChanges(Map<String, String> changes) {
    approvedChanges = changes;
  }

  public synchronized RunSummary summary() {
    return new RunSummary(
        id,
        request.tenant(),
        request.workspace(),
        status.wireName(),
        status.isTerminal(),
        message,
        state == null ? null : state.shownDigest(),
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
