package dev.stagecraft.planner.service.trigger;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.approval.ApprovalOutcome;
import dev.stagecraft.planner.service.run.intake.IdempotencyKey;
import dev.stagecraft.planner.service.run.intake.IntakeOutcome;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.intake.WorkspaceSettings;
import dev.stagecraft.planner.service.run.intake.Workspaces;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunDecisionRequested;
import dev.stagecraft.schemas.run.RunRequested;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a signed {@code dev.stagecraft.run.requested} CloudEvent into a run, at most once per
 * (tenant, idempotency key), and a signed {@code dev.stagecraft.run.decision-requested} into the
 * approval or discard of a run waiting for approval — the one path behind the trigger topic and the
 * webhook (docs/chatops.md, ADR 0016, ADR 0054).
 *
 * <p>In order: the bytes must be at most {@value #MAX_BODY_BYTES} and signed; the signature must
 * verify, over the raw bytes and before anything of them is decoded, with one of the trigger
 * secrets of the tenant it is signed for ({@link SigningTenant}: the {@code stagecraft-tenant}
 * header, else the body's top-level {@code tenant}, located without decoding the body); then the
 * bytes must be a CloudEvents envelope naming that same tenant; the timestamp must be recent when a
 * maximum age is given (the webhook; for a decision, always); the event must be valid against its
 * schema. Then the run starts, or a duplicate refers to the run the key already made; or the run is
 * approved or discarded, here or by the planner instance that drives it; the same decision event
 * again (by tenant, source and event id) gets the answer it got and decides nothing, however late
 * it comes: up to {@value #REMEMBERED_DECISIONS} are remembered here (a Caffeine cache: the recent
 * ones, not strictly the newest), and every one in the {@link DecisionRecords} (durable, shared by
 * the planner instances), so a copy redelivered after a restart, or forgotten here, is answered
 * too. Anything refused changes nothing. Thread-safe (the coordinator serializes keyed starts;
 * decisions taken here are serialized by one lock).
 */
public final class RunTrigger {
  private final RunCoordinator coordinator;
  private final TriggerSecrets secrets;
  private final EventSchemaValidator validator;
  private final Clock clock;
  private final ConfigurationVersions versions;
  private volatile RunIntake intake;
  private volatile Decisions decisions = Decisions.HERE_ONLY;

  /**
   * The largest trigger accepted, in bytes (a configuration larger than a trigger can carry is
   * uploaded as a configuration version and named by its id). Kafka's default largest record is the
   * same.
   */
  public static final int MAX_BODY_BYTES = 1 << 20;

  /** How many decisions (by tenant, source and event id) are remembered here for redeliveries. */
  static final int REMEMBERED_DECISIONS = 10_000;

  /**
   * Decisions taken, by tenant, source and event id. Bounded: one may be forgotten at any time (the
   * records still have it; without records, a forgotten decision sent again is decided again, and
   * the coordinator refuses a second decision on a run). Eviction runs on the writing thread, so
   * the bound holds once a write returns.
   */
  private final Map<String, Decided> decided =
      Caffeine.newBuilder()
          .maximumSize(REMEMBERED_DECISIONS)
          .executor(Runnable::run)
          .<String, Decided>build()
          .asMap();

  /**
   * Held while a decision is taken here, so that of two copies of one event the second gets the
   * first's answer. A lock, not a {@code compute} of the cache: taking a decision calls the
   * coordinator and may wait for the run's record.
   */
  private final Object deciding = new Object();

  private volatile Duration decisionTolerance = DEFAULT_DECISION_TOLERANCE;
  private volatile DecisionRecords decisionRecords = DecisionRecords.NONE;

  /** How far a decision's signing time may be from now when nothing else is said: five minutes. */
  public static final Duration DEFAULT_DECISION_TOLERANCE = Duration.ofMinutes(5);

  /**
   * What a decision needs beyond this instance's coordinator: recording who approved, and asking
   * the planner instance that drives a run this one does not (docs/adr/0050).
   */
  public interface Decisions {
    /**
     * Records that {@code by} approved the run (its records then say who approved). A failure is
     * the adapter's to log: the approval itself stands.
     */
    void approved(String tenant, String runId, String by);

    /**
     * The outcome of {@code decision}, which this instance cannot make (it does not drive the run):
     * {@link Refusal#NOT_FOUND} when the tenant has no such run, {@link Refusal#CONFLICT} when it
     * ended, otherwise what the instance that drives it answered to the same signed event, or
     * {@link Refusal#UNAVAILABLE} when it could not be asked.
     */
    Outcome elsewhere(Decision decision);

    /** One planner instance: a run it does not drive is none it knows. */
    Decisions HERE_ONLY =
        new Decisions() {
          @Override
          public void approved(String tenant, String runId, String by) {}

          @Override
          public Outcome elsewhere(Decision d) {
            return new Refused(
                Refusal.NOT_FOUND,
                "Tenant " + d.tenant() + " has no live run " + d.runId() + " on this planner.");
          }
        };
  }

  /**
   * Where the decisions taken are kept, by tenant, the event's source and its id (CloudEvents: a
   * source never reuses an id), so the same event again gets the answer it got on any planner
   * instance, also after a restart (docs/adr/0055).
   */
  public interface DecisionRecords {
    /**
     * The decision taken on this event, if one was.
     *
     * @throws RuntimeException when the records cannot be read: the event is answered {@link
     *     Refusal#UNAVAILABLE} (send it again later) and decides nothing
     */
    Optional<Decided> find(String tenant, String source, String eventId);

    /**
     * Records a decision just taken (the first record of an event stays). A failure is the
     * adapter's to log: the decision itself stands, and this instance still remembers it.
     */
    void record(String source, Decided decided);

    /** No records beyond what an instance remembers itself. */
    DecisionRecords NONE =
        new DecisionRecords() {
          @Override
          public Optional<Decided> find(String tenant, String source, String eventId) {
            return Optional.empty();
          }

          @Override
          public void record(String source, Decided decided) {}
        };
  }

  /**
   * A signed decision this instance could not make, as it arrived (the instance that drives the run
   * checks the same bytes and signature again).
   *
   * @param forwardedBy the planner instance that forwarded it here, or null (it came from the bot)
   */
  public record Decision(
      String tenant,
      String eventId,
      String runId,
      String decision,
      byte[] body,
      String timestamp,
      String signature,
      String forwardedBy) {}

  /** Uploaded configuration versions of a tenant, by id. */
  @FunctionalInterface
  public interface ConfigurationVersions {
    /**
     * @throws RuntimeException when they cannot be read (the trigger is retried)
     */
    Optional<ConfigurationContent> find(String tenant, String id);

    /** No versions at all (a trigger must carry inline files). */
    ConfigurationVersions NONE = (tenant, id) -> Optional.empty();
  }

  public RunTrigger(
      RunCoordinator coordinator,
      TriggerSecrets secrets,
      EventSchemaValidator validator,
      Clock clock) {
    this(coordinator, secrets, validator, clock, ConfigurationVersions.NONE);
  }

  /**
   * @param versions resolves {@code configuration.version_id}
   */
  public RunTrigger(
      RunCoordinator coordinator,
      TriggerSecrets secrets,
      EventSchemaValidator validator,
      Clock clock,
      ConfigurationVersions versions) {
    this.coordinator = coordinator;
    this.secrets = secrets;
    this.validator = validator;
    this.clock = clock;
    this.versions = versions;
    this.intake = new RunIntake(coordinator, clock);
  }

  /**
   * Tells the settings of the workspaces triggers run in (a workspace a trigger names first is
   * created with the defaults, as {@code POST /api/v1/runs} does). By default every workspace has
   * {@link WorkspaceSettings#DEFAULTS}. Call once, before triggers arrive.
   */
  public RunTrigger withWorkspaces(Workspaces workspaces) {
    this.intake = intake.withWorkspaces(workspaces);
    return this;
  }

  /**
   * Submits the runs of triggers through {@code intake} (the one the public API uses too, with the
   * workspace settings it reads). Call once, before triggers arrive.
   */
  public RunTrigger withIntake(RunIntake intake) {
    this.intake = intake;
    return this;
  }

  /**
   * Lets decisions reach runs other planner instances drive ({@code decisions}), and sets how far a
   * decision's signing time may be from now on the trigger topic too ({@code tolerance}: a decision
   * answers what someone saw, so a late one is refused rather than applied; docs/adr/0054). Call
   * once, before triggers arrive.
   */
  public RunTrigger withDecisions(Decisions decisions, Duration tolerance) {
    this.decisions = decisions;
    this.decisionTolerance = tolerance;
    return this;
  }

  /**
   * Keeps the decisions taken in {@code records} as well as in memory, so a copy of a decided event
   * that comes after a restart, or to another instance, gets the answer the decision got (docs/adr/
   * 0055). Call once, before triggers arrive.
   */
  public RunTrigger withDecisionRecords(DecisionRecords records) {
    this.decisionRecords = records;
    return this;
  }

  /** What became of a trigger. */
  public sealed interface Outcome {}

  /**
   * The decision was made (by this instance, or by the one that drives the run): {@code status} is
   * the run's status right after it ({@code discarded}, or {@code planned}/{@code applying} for an
   * approval).
   */
  public record Decided(
      String tenant, String eventId, String runId, String decision, String status, String comment)
      implements Outcome {}

  /** The run the trigger made, or (duplicate) the run its idempotency key made before. */
  public record Accepted(String tenant, String eventId, RunCoordinator.KeyedStart start)
      implements Outcome {}

  /** Refused; nothing was started. {@code reason} says what was wrong and how to fix it. */
  public record Refused(Refusal kind, String reason) implements Outcome {}

  /** Why a trigger was refused. */
  public enum Refusal {
    /** Not a valid run request or decision: fix the event. */
    MALFORMED,
    /**
     * Unsigned, wrongly signed, unknown tenant, or too old (the webhook; a decision on both paths):
     * fix the signing.
     */
    UNAUTHORIZED,
    /** A decision on a run the tenant does not have. */
    NOT_FOUND,
    /**
     * A decision the run cannot take: not waiting for approval, another plan's digest, or approved
     * after the approval timeout.
     */
    CONFLICT,
    /**
     * Not now: a decision the instance driving the run could not be asked, or a trigger whose run
     * has no record yet (its first record is late, or another instance is starting it). Send it
     * again later; it starts nothing twice.
     */
    UNAVAILABLE,
    /** Larger than {@link #MAX_BODY_BYTES}: nothing of it was read. */
    TOO_LARGE
  }

  /**
   * Handles one trigger.
   *
   * @param body the raw bytes the signature covers
   * @param timestamp the {@value TriggerSignature#TIMESTAMP_HEADER} value (Unix seconds)
   * @param signature the {@value TriggerSignature#SIGNATURE_HEADER} value
   * @param maxAge how far the timestamp may be from now (replay protection of the webhook); null
   *     for no limit (the trigger topic, where a planner may read a request long after it was sent
   *     and the signed idempotency key makes a replayed copy harmless)
   * @throws RuntimeException infrastructure failures (the key could not be recorded): nothing was
   *     started, try again
   */
  public Outcome handle(byte[] body, String timestamp, String signature, Duration maxAge) {
    return handle(body, null, timestamp, signature, maxAge, null);
  }

  /**
   * Handles one trigger that another planner instance may have forwarded.
   *
   * @param forwardedBy the planner instance that forwarded it (a decision is then never forwarded
   *     again), or null
   */
  public Outcome handle(
      byte[] body, String timestamp, String signature, Duration maxAge, String forwardedBy) {
    return handle(body, null, timestamp, signature, maxAge, forwardedBy);
  }

  /**
   * Handles one trigger signed for {@code tenant} (the {@value SigningTenant#HEADER} header; null
   * when not sent: the body's top-level {@code tenant} then).
   */
  public Outcome handle(
      byte[] body,
      String tenant,
      String timestamp,
      String signature,
      Duration maxAge,
      String forwardedBy) {
    if (body == null || body.length == 0) {
      return new Refused(Refusal.MALFORMED, "The trigger is empty: send a CloudEvent (JSON).");
    }
    if (body.length > MAX_BODY_BYTES) {
      return tooLarge(body.length);
    }
    // the signature is checked on the raw bytes before anything of them is decoded
    Refused unauthorized = authenticate(tenant, body, timestamp, signature);
    if (unauthorized != null) {
      return unauthorized;
    }
    EventEnvelope envelope;
    try {
      envelope = EventCodec.decode(body);
    } catch (EventCodec.MalformedEventException e) {
      return new Refused(
          Refusal.MALFORMED,
          "Not a CloudEvent with id, type, tenant and data ("
              + e.getMessage()
              + "); see docs/chatops.md for the format.");
    }
    String signedFor = SigningTenant.of(tenant, body).orElseThrow();
    if (!signedFor.equals(envelope.tenant())) {
      return new Refused(
          Refusal.UNAUTHORIZED,
          "The trigger is signed for tenant "
              + signedFor
              + " but the event names tenant "
              + envelope.tenant()
              + ": sign it with the secret of the tenant it names (and name it once).");
    }
    boolean decision = EventType.RUN_DECISION_REQUESTED.type().equals(envelope.type());
    if (decision) {
      // a decision taken already is answered as it was, however late the copy (a redelivery after
      // a restart, a consumer that lagged): it decides nothing, so its age does not matter
      Outcome earlier = earlierDecision(envelope);
      if (earlier != null) {
        return earlier;
      }
    }
    Refused late = tooOld(timestamp, decision && maxAge == null ? decisionTolerance : maxAge);
    if (late != null) {
      return late;
    }
    if (decision) {
      return decide(envelope, body, timestamp, signature, forwardedBy);
    }
    if (!EventType.RUN_REQUESTED.type().equals(envelope.type())) {
      return new Refused(
          Refusal.MALFORMED,
          "Event "
              + envelope.id()
              + " has type "
              + envelope.type()
              + "; a trigger must be of type "
              + EventType.RUN_REQUESTED.type()
              + " or "
              + EventType.RUN_DECISION_REQUESTED.type()
              + ".");
    }
    return start(envelope, body);
  }

  /** Starts the run a valid {@code dev.stagecraft.run.requested} asks for, through the intake. */
  private Outcome start(EventEnvelope envelope, byte[] body) {
    Refused invalid = invalid(envelope, body, "run request", EventType.RUN_REQUESTED);
    if (invalid != null) {
      return invalid;
    }
    RunRequested request = EventCodec.data(envelope, RunRequested.class);
    Configured configured = configuration(envelope, request);
    if (configured.refused() != null) {
      return configured.refused();
    }
    String requestedBy =
        (request.requestedBy() == null ? "trigger" : request.requestedBy())
            + " via "
            + envelope.source()
            + "@"
            + envelope.tenant();
    String pending =
        "Requested by "
            + requestedBy
            + " (event "
            + envelope.id()
            + ", idempotency key "
            + request.idempotencyKey()
            + ")"
            + (request.message() == null || request.message().isBlank()
                ? "."
                : ": " + request.message());
    // checked as POST /api/v1/runs checks it, by the same intake: a configuration with errors
    // starts nothing (its key is not used up)
    IntakeOutcome outcome =
        intake.accept(
            new Submission(
                envelope.tenant(),
                request.workspace(),
                configured.files(),
                configured.supportFiles(),
                request.variables(),
                Set.of(),
                false,
                List.of(),
                null,
                null,
                null,
                null,
                requestedBy,
                pending,
                null,
                new IdempotencyKey.Trigger(request.idempotencyKey()),
                configured.fromWorkspace()));
    return outcome(envelope, request.idempotencyKey(), outcome);
  }

  /**
   * What a run request runs: its files, a configuration version's, or (without a configuration) its
   * workspace's; or why it is refused.
   */
  private record Configured(
      Map<String, String> files,
      Map<String, byte[]> supportFiles,
      Submission.FromWorkspace fromWorkspace,
      Refused refused) {}

  private Configured configuration(EventEnvelope envelope, RunRequested request) {
    if (request.configuration() == null) {
      // a one-line trigger: the workspace gives the configuration (docs/workspaces.md)
      return new Configured(
          null, Map.of(), new Submission.FromWorkspace(request.ref(), request.commit()), null);
    }
    if (request.ref() != null || request.commit() != null) {
      return refused(
          "Event "
              + envelope.id()
              + " sends a configuration and a ref or commit: a ref or commit names the workspace's"
              + " own configuration, so leave out either the configuration or them.");
    }
    if (request.configuration().files() != null) {
      return new Configured(request.configuration().files(), Map.of(), null, null);
    }
    Optional<ConfigurationContent> version;
    try {
      version = versions.find(envelope.tenant(), request.configuration().versionId());
    } catch (IllegalStateException e) {
      // sealed at rest with a key this planner does not have (docs/adr/0024): the message
      // names the version and the key id, never content
      return refused(
          "Event "
              + envelope.id()
              + " names a configuration version that cannot be used: "
              + e.getMessage()
              + " Restore the secrets key, or upload the configuration again and send its new"
              + " id.");
    }
    if (version.isEmpty()) {
      return refused(
          "Event "
              + envelope.id()
              + " names configuration version "
              + request.configuration().versionId()
              + ", which tenant "
              + envelope.tenant()
              + " does not have: upload it (POST /api/v1/configuration-versions) or send"
              + " configuration.files (file name → content).");
    }
    return new Configured(version.get().files(), version.get().supportFiles(), null, null);
  }

  private static Configured refused(String why) {
    return new Configured(null, null, null, new Refused(Refusal.MALFORMED, why));
  }

  /**
   * A trigger's outcome from its submission's. Accepted means recorded (docs/adr/0025): the
   * trigger's offset or webhook answer follows the run's first record, so a crash right after still
   * leaves the run to be found.
   */
  private static Outcome outcome(EventEnvelope envelope, String key, IntakeOutcome outcome) {
    return switch (outcome) {
      case IntakeOutcome.Started s when s.recorded() ->
          new Accepted(
              envelope.tenant(),
              envelope.id(),
              new RunCoordinator.KeyedStart(s.run().id(), Optional.of(s.run()), false));
      case IntakeOutcome.Started s -> unrecordedInTime(envelope, s.run().id());
      case IntakeOutcome.Replayed r when r.recorded() ->
          new Accepted(
              envelope.tenant(),
              envelope.id(),
              new RunCoordinator.KeyedStart(r.runId(), r.run(), true));
      case IntakeOutcome.Replayed r -> unrecordedInTime(envelope, r.runId());
      case IntakeOutcome.Refused refused -> refused(envelope, key, refused.reason());
    };
  }

  private static Refused refused(EventEnvelope envelope, String key, IntakeOutcome.Refusal why) {
    return switch (why) {
      case IntakeOutcome.InvalidFiles f ->
          new Refused(
              Refusal.MALFORMED,
              "Event "
                  + envelope.id()
                  + " has files that cannot be written: "
                  + f.error().getMessage()
                  + " Nothing was started.");
      case IntakeOutcome.InvalidConfiguration c ->
          new Refused(
              Refusal.MALFORMED,
              "Event "
                  + envelope.id()
                  + " carries a configuration with errors; nothing was started. Fix them and send"
                  + " it again (the idempotency key is not used up):\n"
                  + c.check().renderDiagnostics());
      case IntakeOutcome.NoConfiguration n ->
          new Refused(
              Refusal.MALFORMED, "Event " + envelope.id() + " starts nothing: " + n.reason());
      case IntakeOutcome.KeyNotYetRecorded n ->
          new Refused(
              Refusal.UNAVAILABLE,
              "Event "
                  + envelope.id()
                  + ": run "
                  + n.runId()
                  + " of idempotency key "
                  + key
                  + " is being started by another planner instance and has no record yet; the"
                  + " event is handled again later (it starts nothing twice).");
      case IntakeOutcome.KeyReused r -> throw new IllegalStateException("not a trigger key: " + r);
      case IntakeOutcome.KeyInUse u -> throw new IllegalStateException("not a trigger key: " + u);
    };
  }

  private static Refused unrecordedInTime(EventEnvelope envelope, String runId) {
    return new Refused(
        Refusal.UNAVAILABLE,
        "Event "
            + envelope.id()
            + ": run "
            + runId
            + " started but its first record was not written within 5 s; the event is handled"
            + " again later (it starts nothing twice).");
  }

  /**
   * Approves or discards the run the decision names, here when this instance drives it, else where
   * it is driven ({@link Decisions#elsewhere}). The approval is bound to the digest named: a run
   * that planned anything else is not applied (docs/adr/0005).
   */
  private Outcome decide(
      EventEnvelope envelope, byte[] body, String timestamp, String signature, String forwardedBy) {
    Refused invalid = invalid(envelope, body, "decision", EventType.RUN_DECISION_REQUESTED);
    if (invalid != null) {
      return invalid;
    }
    RunDecisionRequested request = EventCodec.data(envelope, RunDecisionRequested.class);
    String tenant = envelope.tenant();
    String runId = request.runId();
    boolean approve = RunDecisionRequested.APPROVE.equals(request.decision());
    String by =
        (request.requestedBy() == null ? "trigger" : request.requestedBy())
            + " via "
            + envelope.source()
            + "@"
            + tenant;
    String key = decisionKey(envelope);
    ApprovalOutcome outcome;
    synchronized (deciding) {
      // the same event again (a redelivery, a webhook retry) gets the answer it got: no second
      // decision, no refusal for a decision that was taken
      Decided earlier = decided.get(key);
      if (earlier != null) {
        return earlier;
      }
      outcome =
          approve
              ? coordinator.approve(tenant, runId, request.planDigest(), by)
              : coordinator.discard(tenant, runId, by);
      if (outcome == ApprovalOutcome.DONE) {
        if (approve) {
          // the run's row exists before its approver is written to it
          coordinator.awaitRecorded(tenant, runId, Duration.ofSeconds(5));
          decisions.approved(tenant, runId, by);
        }
        Decided made =
            new Decided(
                tenant,
                envelope.id(),
                runId,
                request.decision(),
                coordinator
                    .find(tenant, runId)
                    .map(run -> run.summary().status())
                    .orElse(approve ? null : "discarded"),
                request.comment());
        decided.put(key, made);
        decisionRecords.record(envelope.source(), made);
        return made;
      }
    }
    if (outcome == ApprovalOutcome.NOT_FOUND) {
      Outcome there =
          decisions.elsewhere(
              new Decision(
                  tenant,
                  envelope.id(),
                  runId,
                  request.decision(),
                  body,
                  timestamp,
                  signature,
                  forwardedBy));
      if (there instanceof Decided made) {
        decided.put(key, made);
      }
      return there;
    }
    return new Refused(Refusal.CONFLICT, outcome.refusal(runId, request.planDigest()));
  }

  private static String decisionKey(EventEnvelope envelope) {
    return envelope.tenant() + "\n" + envelope.source() + "\n" + envelope.id();
  }

  /**
   * The answer a decision event got when it was taken (remembered here, else in the records), or
   * null when it was not taken; a refusal when the records cannot be read.
   */
  private Outcome earlierDecision(EventEnvelope envelope) {
    String key = decisionKey(envelope);
    Decided earlier = decided.get(key);
    if (earlier != null) {
      return earlier;
    }
    Optional<Decided> recorded;
    try {
      recorded = decisionRecords.find(envelope.tenant(), envelope.source(), envelope.id());
    } catch (RuntimeException e) {
      return new Refused(
          Refusal.UNAVAILABLE,
          "Event "
              + envelope.id()
              + ": the decisions taken cannot be read now, so whether this one was taken is not"
              + " known; nothing was decided. Send it again later.");
    }
    if (recorded.isEmpty()) {
      return null;
    }
    decided.put(key, recorded.get());
    return recorded.get();
  }

  /** The refusal of an event that violates its type's schema, saying how; null when it is valid. */
  private Refused invalid(EventEnvelope envelope, byte[] body, String what, EventType type) {
    List<String> violations = validator.validate(new String(body, StandardCharsets.UTF_8));
    if (violations.isEmpty()) {
      return null;
    }
    String schema = type.schemaResource().substring(type.schemaResource().lastIndexOf('/') + 1);
    return new Refused(
        Refusal.MALFORMED,
        "Event "
            + envelope.id()
            + " is not a valid "
            + what
            + ": "
            + String.join("; ", violations)
            + " (schema "
            + schema
            + ").");
  }

  /** The refusal of a trigger of {@code bytes} bytes, over {@link #MAX_BODY_BYTES}. */
  public static Refused tooLarge(long bytes) {
    return new Refused(
        Refusal.TOO_LARGE,
        "The trigger has "
            + bytes
            + " bytes, above the limit of "
            + MAX_BODY_BYTES
            + " bytes: upload the configuration (POST /api/v1/configuration-versions) and send"
            + " its configuration.version_id instead of its files.");
  }

  /**
   * The refusal of a trigger whose signature does not verify over {@code body} with a secret of the
   * tenant it is signed for ({@link SigningTenant}), or null when it verifies.
   */
  private Refused authenticate(
      String tenantHeader, byte[] body, String timestamp, String signature) {
    if (signature == null || timestamp == null) {
      return new Refused(
          Refusal.UNAUTHORIZED,
          "The trigger is not signed: send the headers "
              + TriggerSignature.TIMESTAMP_HEADER
              + " (Unix seconds) and "
              + TriggerSignature.SIGNATURE_HEADER
              + " (sha256=HMAC-SHA256 of '<timestamp>.<body>' with the tenant's trigger secret).");
    }
    long seconds;
    try {
      seconds = Long.parseLong(timestamp.trim());
    } catch (NumberFormatException e) {
      return new Refused(
          Refusal.UNAUTHORIZED,
          "The " + TriggerSignature.TIMESTAMP_HEADER + " header must be Unix seconds.");
    }
    Optional<String> claimed = SigningTenant.of(tenantHeader, body);
    if (claimed.isEmpty()) {
      return new Refused(
          Refusal.UNAUTHORIZED,
          "The signature cannot be checked: the trigger names no tenant. Send the "
              + SigningTenant.HEADER
              + " header (or the CloudEvent's top-level \"tenant\") with the signed bytes;"
              + " nothing of it was decoded.");
    }
    String tenant = claimed.get();
    List<String> candidates = secrets.verifying(tenant);
    boolean verified =
        candidates.stream().anyMatch(s -> TriggerSignature.matches(s, seconds, body, signature));
    if (!verified) {
      // the same answer for an unknown tenant and a wrong secret: it tells an attacker nothing
      return new Refused(
          Refusal.UNAUTHORIZED,
          "The signature does not verify for tenant "
              + tenant
              + ": sign '<timestamp>.<raw body>' with the tenant's current trigger secret"
              + " (POST /api/v1/hooks/secret issues one).");
    }
    return null;
  }

  /**
   * The refusal of a trigger signed further than {@code maxAge} from now (replay protection), or
   * null; {@code maxAge} null: no limit. {@link #authenticate} checked the timestamp's form.
   */
  private Refused tooOld(String timestamp, Duration maxAge) {
    if (maxAge == null) {
      return null;
    }
    long seconds = Long.parseLong(timestamp.trim());
    Duration age = Duration.between(Instant.ofEpochSecond(seconds), clock.instant()).abs();
    if (age.compareTo(maxAge) <= 0) {
      return null;
    }
    return new Refused(
        Refusal.UNAUTHORIZED,
        "The trigger was signed "
            + age.toSeconds()
            + " s from now; at most "
            + maxAge.toSeconds()
            + " s are accepted (replay protection): sign it again with the current time.");
  }
}
