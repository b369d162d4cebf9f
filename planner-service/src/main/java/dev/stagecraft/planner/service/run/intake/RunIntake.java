package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.run.PreparedConfiguration;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.source.RunSource;
import dev.stagecraft.planner.service.workspace.ResolvedVariables;
import dev.stagecraft.planner.service.workspace.VariableUse;
import dev.stagecraft.planner.service.workspace.WorkspaceVariables;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
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
  private final Stored stored;

  /** The API keys' record, the keyring that digests their requests, and their retention. */
  private record ApiKeys(ApiRequestKeys store, SecretsKeyring keyring, Duration retention) {}

  /** What workspaces hold for their runs: configurations and variables (docs/workspaces.md). */
  private record Stored(WorkspaceConfigurations configurations, WorkspaceVariables variables) {}

  /** Submissions to {@code coordinator}; every workspace with the default settings. */
  public RunIntake(RunCoordinator coordinator, Clock clock) {
    this(
        coordinator,
        clock,
        Workspaces.DEFAULTS,
        RunDescriptions.NONE,
        null,
        new Stored(WorkspaceConfigurations.NONE, WorkspaceVariables.NONE));
  }

  private RunIntake(
      RunCoordinator coordinator,
      Clock clock,
      Workspaces workspaces,
      RunDescriptions descriptions,
      ApiKeys apiKeys,
      Stored stored) {
    this.coordinator = coordinator;
    this.check = new ConfigurationCheck(coordinator.uploads());
    this.clock = clock;
    this.workspaces = workspaces;
    this.descriptions = descriptions;
    this.apiKeys = apiKeys;
    this.stored = stored;
  }

  /** A copy that reads (and creates) workspace settings from {@code workspaces}. */
  public RunIntake withWorkspaces(Workspaces workspaces) {
    return new RunIntake(coordinator, clock, workspaces, descriptions, apiKeys, stored);
  }

  /** A copy that records the {@link Submission.Description} of each run it starts. */
  public RunIntake withDescriptions(RunDescriptions descriptions) {
    return new RunIntake(coordinator, clock, workspaces, descriptions, apiKeys, stored);
  }

  /**
   * A copy that takes the configuration of a submission without files from its workspace ({@code
   * configurations}) and merges each run's variables over those its workspace holds ({@code
   * variables}).
   */
  public RunIntake withWorkspaceInputs(
      WorkspaceConfigurations configurations, WorkspaceVariables variables) {
    return new RunIntake(
        coordinator,
        clock,
        workspaces,
        descriptions,
        apiKeys,
        new Stored(configurations, variables));
  }

  /**
   * A copy that accepts {@link IdempotencyKey.Api} keys: recorded in {@code store} with the keyed
   * digest ({@code keyring}) of their request, remembered for {@code retention}.
   */
  public RunIntake withApiKeys(ApiRequestKeys store, SecretsKeyring keyring, Duration retention) {
    return new RunIntake(
        coordinator,
        clock,
        workspaces,
        descriptions,
        new ApiKeys(store, keyring, retention),
        stored);
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
    Sourced sourced = sourced(submission);
    if (sourced.refusal() != null) {
      return new IntakeOutcome.Refused(sourced.refusal());
    }
    Submission s = sourced.submission();
    RunSource source = sourced.source();
    String sourceFailure = sourced.failure();
    ResolvedVariables variables =
        stored.variables().resolve(s.tenant(), s.workspace(), s.variables(), s.hclVariables());
    Checked checked;
    if (sourceFailure != null) {
      // the run fails at planning with why (docs/workspaces.md): nothing to check
      checked = new Checked(null, RunVariables.of(variables, Set.of(), null));
    } else {
      switch (check.check(s, variables, source == null ? null : source.commit())) {
        case ConfigurationCheck.Failed failed -> {
          return new IntakeOutcome.Refused(failed.reason());
        }
        case ConfigurationCheck.Passed passed ->
            checked = new Checked(passed.prepared(), passed.variables());
      }
    }
    WorkspaceSettings settings;
    try {
      settings = workspaces.settingsOf(s.tenant(), s.workspace());
    } catch (RuntimeException e) {
      if (checked.prepared() != null) {
        UploadedFiles.delete(checked.prepared().directory());
      }
      throw e;
    }
    RunRequest request =
        runRequest(s, settings, checked.variables())
            .withInputs(
                new RunRequest.WorkspaceInputs(
                    checked.variables().sensitive(),
                    checked.variables().environment(),
                    checked.variables().sensitiveEnvironment(),
                    sourceFailure,
                    checked.variables().used().stream().map(VariableUse::of).toList()));
    s = s.described(source, checked.variables().used(), variables.versions());
    String pending = pendingMessage(s, source);
    // a workspace without auto-apply waits for a decision or POST /runs/{id}/approve
    boolean awaitingApproval = !settings.autoApply();
    PreparedConfiguration prepared = checked.prepared();
    return switch (s.key()) {
      case IdempotencyKey.None none ->
          started(coordinator.start(request, pending, awaitingApproval, prepared), s);
      case IdempotencyKey.Api key ->
          startWithApiKey(s, key, request, pending, awaitingApproval, prepared);
      case IdempotencyKey.Trigger key ->
          startWithTriggerKey(s, key, request, pending, awaitingApproval, prepared);
    };
  }

  /**
   * A submission with its workspace's configuration when it sent none: where it came from ({@code
   * source}, null when sent), why the source could not give one ({@code failure}: the run fails at
   * planning), or why nothing can start ({@code refusal}).
   */
  private record Sourced(
      Submission submission, RunSource source, String failure, IntakeOutcome.Refusal refusal) {}

  private Sourced sourced(Submission s) {
    if (s.fromWorkspace() == null) {
      return new Sourced(s, null, null, null);
    }
    return switch (stored
        .configurations()
        .resolve(s.tenant(), s.workspace(), s.fromWorkspace().ref(), s.fromWorkspace().commit())) {
      case WorkspaceConfigurations.Missing missing ->
          new Sourced(s, null, null, new IntakeOutcome.NoConfiguration(missing.reason()));
      case WorkspaceConfigurations.Failed failed ->
          new Sourced(s, failed.source(), failed.reason(), null);
      case WorkspaceConfigurations.Found found ->
          new Sourced(s.withFiles(found.files(), found.supportFiles()), found.source(), null, null);
    };
  }

  /** What the check prepared (null when nothing was checked) and the run's variables. */
  private record Checked(PreparedConfiguration prepared, RunVariables variables) {}

  /** The submission's pending message, and where its configuration came from when not sent. */
  private static String pendingMessage(Submission s, RunSource source) {
    if (source == null) {
      return s.pendingMessage();
    }
    String from = "Configuration: " + source.describe();
    return s.pendingMessage() == null ? from : s.pendingMessage() + "; " + from;
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
      String pending,
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
      deletePrepared(prepared); // nothing started: the prepared files go too
      throw e;
    }
    if (!recorded) {
      // a concurrent request with the key recorded it a moment ago
      deletePrepared(prepared);
      return replay(s.tenant(), s.workspace(), key)
          .orElseGet(() -> new IntakeOutcome.Refused(new IntakeOutcome.KeyInUse()));
    }
    return started(coordinator.startAs(runId, request, pending, awaitingApproval, prepared), s);
  }

  private IntakeOutcome startWithTriggerKey(
      Submission s,
      IdempotencyKey.Trigger key,
      RunRequest request,
      String pending,
      boolean awaitingApproval,
      PreparedConfiguration prepared) {
    RunCoordinator.KeyedStart start =
        coordinator.start(request, key.key(), pending, awaitingApproval, prepared);
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
  static RunRequest runRequest(Submission s, WorkspaceSettings settings, RunVariables variables) {
    RunRequest request =
        new RunRequest(
                s.tenant(),
                s.workspace(),
                s.files(),
                s.supportFiles(),
                variables.values(),
                s.destroy(),
                s.replace(),
                s.expectedSerial(),
                s.expectedDigest(),
                s.requestedBy(),
                s.parallelism() == null ? settings.parallelism() : s.parallelism())
            .withStepTimeoutSeconds(settings.stepTimeoutSeconds())
            .withHclVariables(variables.hcl());
    return settings.coalescing() ? request.withCoalescingKey(coalescingKey(s)) : request;
  }

  /** A prepared directory goes when nothing adopts it (null: nothing was prepared). */
  private static void deletePrepared(PreparedConfiguration prepared) {
    if (prepared != null) {
      UploadedFiles.delete(prepared.directory());
    }
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
