package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.run.PreparedConfiguration;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * The one way a run is submitted, shared by the public API ({@code POST /api/v1/runs}) and chat-ops
 * triggers: {@link #accept} checks the configuration ({@link ConfigurationCheck}), applies the
 * workspace's settings, makes the submission at most once per {@link IdempotencyKey} and starts the
 * run on the {@link RunCoordinator}. Every refusal changes nothing: the files written for the check
 * are deleted and no key is used up.
 *
 * <p>Concurrency: thread-safe and without state of its own; keyed starts are serialized by the
 * coordinator (trigger keys) or by the atomic record of the key ({@link ApiRequestKeys}). The
 * {@code with*} methods return a copy: configure before submissions arrive.
 */
public final class RunIntake {
  /**
   * How long a submission waits for its run's first record (docs/adr/0025); normally it is written
   * within milliseconds.
   */
  public static final Duration RECORDS_WAIT = Duration.ofSeconds(5);

  private final RunCoordinator coordinator;
  private final ConfigurationCheck check;
  private final Clock clock;
  private final Workspaces workspaces;
  private final RunDescriptions descriptions;
  private final ApiKeys apiKeys;

  /** The API keys' record, the keyring that digests their requests, and their retention. */
  private record ApiKeys(ApiRequestKeys store, SecretsKeyring keyring, Duration retention) {}

  /** Submissions to {@code coordinator}; every workspace with the default settings. */
  public RunIntake(RunCoordinator coordinator, Clock clock) {
    this(coordinator, clock, Workspaces.DEFAULTS, RunDescriptions.NONE, null);
  }

  private RunIntake(
      RunCoordinator coordinator,
      Clock clock,
      Workspaces workspaces,
      RunDescriptions descriptions,
      ApiKeys apiKeys) {
    this.coordinator = coordinator;
    this.check = new ConfigurationCheck(coordinator.uploads());
    this.clock = clock;
    this.workspaces = workspaces;
    this.descriptions = descriptions;
    this.apiKeys = apiKeys;
  }

  /** A copy that reads (and creates) workspace settings from {@code workspaces}. */
  public RunIntake withWorkspaces(Workspaces workspaces) {
    return new RunIntake(coordinator, clock, workspaces, descriptions, apiKeys);
  }

  /** A copy that records the {@link Submission.Description} of each run it starts. */
  public RunIntake withDescriptions(RunDescriptions descriptions) {
    return new RunIntake(coordinator, clock, workspaces, descriptions, apiKeys);
  }

  /**
   * A copy that accepts {@link IdempotencyKey.Api} keys: recorded in {@code store} with the keyed
   * digest ({@code keyring}) of their request, remembered for {@code retention}.
   */
  public RunIntake withApiKeys(ApiRequestKeys store, SecretsKeyring keyring, Duration retention) {
    return new RunIntake(
        coordinator, clock, workspaces, descriptions, new ApiKeys(store, keyring, retention));
  }

  /**
   * Submits a run.
   *
   * @throws RuntimeException infrastructure failures (settings or key records unreadable): nothing
   *     was started, try again
   */
  public IntakeOutcome accept(Submission submission) {
    if (submission.key() instanceof IdempotencyKey.Api key) {
      Optional<IntakeOutcome> replay = replay(submission.tenant(), submission.workspace(), key);
      if (replay.isPresent()) {
        return replay.get();
      }
    }
    PreparedConfiguration prepared;
    switch (check.check(submission)) {
      case ConfigurationCheck.Failed failed -> {
        return new IntakeOutcome.Refused(failed.reason());
      }
      case ConfigurationCheck.Passed passed -> prepared = passed.prepared();
    }
    WorkspaceSettings settings;
    try {
      settings = workspaces.settingsOf(submission.tenant(), submission.workspace());
    } catch (RuntimeException e) {
      UploadedFiles.delete(prepared.directory());
      throw e;
    }
    RunRequest request = runRequest(submission, settings);
    // a workspace without auto-apply waits for a decision or POST /runs/{id}/approve
    boolean awaitingApproval = !settings.autoApply();
    return switch (submission.key()) {
      case IdempotencyKey.None none ->
          started(coordinator.start(request, awaitingApproval, prepared), submission);
      case IdempotencyKey.Api key ->
          startWithApiKey(submission, key, request, awaitingApproval, prepared);
      case IdempotencyKey.Trigger key ->
          startWithTriggerKey(submission, key, request, awaitingApproval, prepared);
    };
  }

  /**
   * The answer to an API key already recorded within the retention window: the run it made, or a
   * refusal when this request's body differs. Empty when the key is not recorded, or its record is
   * older than the retention window. The API asks this first, before anything else of a request is
   * looked at; {@link #accept} asks it again.
   */
  public Optional<IntakeOutcome> replay(String tenant, String workspace, IdempotencyKey.Api key) {
    ApiKeys keys = apiKeys();
    String storedKey = key.storedKey(workspace);
    Optional<ApiRequestKeys.Recorded> recorded = keys.store().find(tenant, storedKey);
    if (recorded.isEmpty()
        || recorded.get().recordedAt().isBefore(clock.instant().minus(keys.retention()))) {
      return Optional.empty();
    }
    String runId = recorded.get().runId();
    if (!keys.keyring()
        .matchesKeyedDigest(
            recorded.get().requestDigest(),
            key.canonicalRequest(),
            requestDigestContext(tenant, storedKey))) {
      return Optional.of(new IntakeOutcome.Refused(new IntakeOutcome.KeyReused(key.key(), runId)));
    }
    return Optional.of(new IntakeOutcome.Replayed(runId, coordinator.find(tenant, runId), true));
  }

  /** Records the API key before the run starts: a retry (here or on another planner) replays. */
  private IntakeOutcome startWithApiKey(
      Submission s,
      IdempotencyKey.Api key,
      RunRequest request,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    ApiKeys keys = apiKeys();
    String storedKey = key.storedKey(s.workspace());
    String runId = "run-" + UUID.randomUUID();
    boolean recorded;
    try {
      String digest =
          keys.keyring()
              .keyedDigest(key.canonicalRequest(), requestDigestContext(s.tenant(), storedKey));
      recorded =
          keys.store()
              .record(
                  s.tenant(),
                  storedKey,
                  runId,
                  s.workspace(),
                  digest,
                  clock.instant().minus(keys.retention()));
    } catch (RuntimeException e) {
      UploadedFiles.delete(prepared.directory()); // nothing started: the prepared files go too
      throw e;
    }
    if (!recorded) {
      // a concurrent request with the key recorded it a moment ago
      UploadedFiles.delete(prepared.directory());
      return replay(s.tenant(), s.workspace(), key)
          .orElseGet(() -> new IntakeOutcome.Refused(new IntakeOutcome.KeyInUse()));
    }
    return started(coordinator.startAs(runId, request, awaitingApproval, prepared), s);
  }

  private IntakeOutcome startWithTriggerKey(
      Submission s,
      IdempotencyKey.Trigger key,
      RunRequest request,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    RunCoordinator.KeyedStart start =
        coordinator.start(request, key.key(), s.pendingMessage(), awaitingApproval, prepared);
    if (start.unrecorded()) {
      return new IntakeOutcome.Refused(new IntakeOutcome.KeyNotYetRecorded(start.runId()));
    }
    if (start.duplicate()) {
      boolean recorded = coordinator.awaitRecorded(s.tenant(), start.runId(), RECORDS_WAIT);
      return new IntakeOutcome.Replayed(start.runId(), start.run(), recorded);
    }
    return started(start.run().orElseThrow(), s);
  }

  /**
   * A run just started: its description goes on its recording lane, after its first record, and the
   * answer waits (at most {@link #RECORDS_WAIT}) for that record, so a crash right after still
   * leaves the run to be found. The run itself does not wait for this.
   */
  private IntakeOutcome started(Run run, Submission s) {
    if (s.description() != null) {
      coordinator.recordInOrder(run, () -> descriptions.describe(run.id(), s));
    }
    return new IntakeOutcome.Started(
        run, coordinator.awaitRecorded(s.tenant(), run.id(), RECORDS_WAIT));
  }

  /** The run request of a submission, with the workspace's settings applied. */
  static RunRequest runRequest(Submission s, WorkspaceSettings settings) {
    RunRequest request =
        new RunRequest(
                s.tenant(),
                s.workspace(),
                s.files(),
                s.supportFiles(),
                s.variables(),
                s.destroy(),
                s.replace(),
                s.expectedSerial(),
                s.expectedDigest(),
                s.requestedBy(),
                s.parallelism() == null ? settings.parallelism() : s.parallelism())
            .withStepTimeoutSeconds(settings.stepTimeoutSeconds())
            .withHclVariables(s.hclVariables());
    return settings.coalescing() ? request.withCoalescingKey(coalescingKey(s)) : request;
  }

  /**
   * The lock queue's coalescing key of a run on a workspace with coalescing on: {@code run:} and
   * the submission's coalescing key, or {@code run:default} (docs/adr/0023). The lock queue is per
   * workspace, so the key needs no workspace in it.
   */
  static String coalescingKey(Submission s) {
    return "run:" + (s.coalescingKey() == null ? "default" : s.coalescingKey());
  }

  private ApiKeys apiKeys() {
    if (apiKeys == null) {
      throw new IllegalStateException("this intake accepts no API idempotency keys");
    }
    return apiKeys;
  }

  /** What a request digest is bound to: the tenant and the stored key. */
  private static byte[] requestDigestContext(String tenant, String storedKey) {
    return SecretsKeyring.associatedData("dev.stagecraft.run-request/digest/v1", tenant, storedKey);
  }
}
