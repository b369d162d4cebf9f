package dev.stagecraft.planner.service.run;

import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a run at most once per (tenant, idempotency key) ({@link RunCoordinator#start(RunRequest,
 * String, String, boolean, PreparedConfiguration)}): the key is recorded in the durable {@link
 * IdempotencyKeys} before the run starts ("record before the side effect"); a duplicate, on this
 * instance or after a restart, answers the first run and starts nothing; a key whose recorder died
 * before the run's first record is taken over.
 *
 * <p>Concurrency: keyed starts of this instance are serialized on this object (one lookup and, for
 * a new key, one durable write), so two copies arriving at once make one run.
 */
final class KeyedStarts {
  private static final Logger LOG = LoggerFactory.getLogger(KeyedStarts.class);

  /** Starts a run under the id its key made. */
  @FunctionalInterface
  interface Launcher {
    Run launch(
        String id,
        RunRequest request,
        String pendingMessage,
        PreparedConfiguration prepared,
        boolean awaitingApproval);
  }

  private final Map<String, Run> runs;
  private final Launcher launcher;
  private volatile IdempotencyKeys keys = IdempotencyKeys.inMemory();

  KeyedStarts(Map<String, Run> runs, Launcher launcher) {
    this.runs = runs;
    this.launcher = launcher;
  }

  /** Where the keys are recorded; in memory only until set. */
  void keys(IdempotencyKeys keys) {
    this.keys = keys;
  }

  private Optional<Run> find(String tenant, String runId) {
    return Optional.ofNullable(runs.get(runId)).filter(r -> r.request.tenant().equals(tenant));
  }

  /**
   * See {@link RunCoordinator#start(RunRequest, String, String, boolean, PreparedConfiguration)}.
   */
  RunCoordinator.KeyedStart start(
      RunRequest request,
      String idempotencyKey,
      String pendingMessage,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    String id = RunCoordinator.runIdFor(request.tenant(), idempotencyKey);
    boolean launched = false;
    try {
      synchronized (this) {
        Run existing = runs.get(id);
        if (existing != null) {
          return new RunCoordinator.KeyedStart(id, Optional.of(existing), true);
        }
        Optional<String> recorded = keys.runFor(request.tenant(), idempotencyKey);
        if (recorded.isPresent()) {
          Optional<Run> here = find(request.tenant(), recorded.get());
          IdempotencyKeys.Claim claim =
              here.isPresent() || !recorded.get().equals(id)
                  ? IdempotencyKeys.Claim.RECORDED
                  : keys.claimUnrecorded(request.tenant(), idempotencyKey);
          switch (claim) {
            case RECORDED -> {
              return new RunCoordinator.KeyedStart(recorded.get(), here, true);
            }
            case NOT_YET -> {
              return new RunCoordinator.KeyedStart(id, Optional.empty(), true, true);
            }
            case TAKEN_OVER ->
                // its recorder halted before the run's first record: the run starts here
                LOG.info("run {}: its recorder died before its first record; starting it", id);
          }
        } else if (!keys.record(request.tenant(), idempotencyKey, id, request.workspace())) {
          // another planner instance recorded it a moment ago: that one runs it
          return new RunCoordinator.KeyedStart(id, find(request.tenant(), id), true, true);
        }
        launched = true;
        return new RunCoordinator.KeyedStart(
            id,
            Optional.of(launcher.launch(id, request, pendingMessage, prepared, awaitingApproval)),
            false);
      }
    } finally {
      if (!launched && prepared != null) {
        UploadedFiles.delete(prepared.directory());
      }
    }
  }
}
