package dev.stagecraft.planner.service.trigger;

import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunRequested;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a signed {@code dev.stagecraft.run.requested} CloudEvent into a run, at most once per
 * (tenant, idempotency key) — the one path behind the trigger topic and the webhook
 * (docs/chatops.md, ADR 0016).
 *
 * <p>In order: the bytes must be a CloudEvents envelope naming a tenant; the signature must verify
 * with one of that tenant's trigger secrets (the {@code tenant} field alone is never trusted); the
 * timestamp must be recent when a maximum age is given (the webhook); the event must be valid
 * against {@code run-requested.v1.json}. Then the run starts, or a duplicate refers to the run the
 * key already made. Anything refused changes nothing. Thread-safe (stateless; the coordinator
 * serializes keyed starts).
 */
public final class RunTrigger {
  private final RunCoordinator coordinator;
  private final TriggerSecrets secrets;
  private final EventSchemaValidator validator;
  private final Clock clock;
  private final ConfigurationVersions versions;
  private volatile java.util.function.BiPredicate<String, String> coalescing = (t, w) -> false;

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
  }

  /**
   * Tells which workspaces coalesce queued runs (their {@code coalescing} setting, by tenant and
   * workspace): a trigger's run on such a workspace asks for the lock with the coalescing key
   * {@code run:default}, so a newer trigger replaces it while it is queued (docs/adr/0023). By
   * default none does. The predicate may throw when the setting cannot be read: the trigger is then
   * retried. Call once, before triggers arrive.
   */
  public RunTrigger withCoalescing(java.util.function.BiPredicate<String, String> coalescing) {
    this.coalescing = coalescing;
    return this;
  }

  /** What became of a trigger. */
  public sealed interface Outcome {}

  /** The run the trigger made, or (duplicate) the run its idempotency key made before. */
  public record Accepted(String tenant, String eventId, RunCoordinator.KeyedStart start)
      implements Outcome {}

  /** Refused; nothing was started. {@code reason} says what was wrong and how to fix it. */
  public record Refused(Refusal kind, String reason) implements Outcome {}

  /** Why a trigger was refused. */
  public enum Refusal {
    /** Not a valid run request: fix the event. */
    MALFORMED,
    /** Unsigned, wrongly signed, unknown tenant, or (webhook) too old: fix the signing. */
    UNAUTHORIZED
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
    if (body == null || body.length == 0) {
      return new Refused(Refusal.MALFORMED, "The trigger is empty: send a CloudEvent (JSON).");
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
    Refused unauthorized = authenticate(envelope.tenant(), body, timestamp, signature, maxAge);
    if (unauthorized != null) {
      return unauthorized;
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
              + ".");
    }
    List<String> violations = validator.validate(new String(body, StandardCharsets.UTF_8));
    if (!violations.isEmpty()) {
      return new Refused(
          Refusal.MALFORMED,
          "Event "
              + envelope.id()
              + " is not a valid run request: "
              + String.join("; ", violations)
              + " (schema run-requested.v1.json).");
    }
    RunRequested request = EventCodec.data(envelope, RunRequested.class);
    Map<String, String> files = request.configuration().files();
    Map<String, byte[]> supportFiles = Map.of();
    if (files == null) {
      Optional<ConfigurationContent> version;
      try {
        version = versions.find(envelope.tenant(), request.configuration().versionId());
      } catch (IllegalStateException e) {
        // sealed at rest with a key this planner does not have (docs/adr/0024): the message
        // names the version and the key id, never content
        return new Refused(
            Refusal.MALFORMED,
            "Event "
                + envelope.id()
                + " names a configuration version that cannot be used: "
                + e.getMessage()
                + " Restore the secrets key, or upload the configuration again and send its new"
                + " id.");
      }
      if (version.isEmpty()) {
        return new Refused(
            Refusal.MALFORMED,
            "Event "
                + envelope.id()
                + " names configuration version "
                + request.configuration().versionId()
                + ", which tenant "
                + envelope.tenant()
                + " does not have: upload it (POST /api/v1/configuration-versions) or send"
                + " configuration.files (file name → content).");
      }
      files = version.get().files();
      supportFiles = version.get().supportFiles();
    }
    String requestedBy =
        (request.requestedBy() == null ? "trigger" : request.requestedBy())
            + " via "
            + envelope.source()
            + "@"
            + envelope.tenant();
    RunRequest run =
        new RunRequest(
            envelope.tenant(),
            request.workspace(),
            files,
            supportFiles,
            request.variables(),
            false,
            List.of(),
            null,
            null,
            requestedBy,
            10);
    if (coalescing.test(envelope.tenant(), request.workspace())) {
      run = run.withCoalescingKey("run:default");
    }
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
    RunCoordinator.KeyedStart started = coordinator.start(run, request.idempotencyKey(), pending);
    // accepted means recorded (docs/adr/0025): the trigger's offset or webhook answer follows the
    // run's first record, so a crash right after still leaves the run to be found
    coordinator.awaitRecorded(envelope.tenant(), started.runId(), Duration.ofSeconds(5));
    return new Accepted(envelope.tenant(), envelope.id(), started);
  }

  private Refused authenticate(
      String tenant, byte[] body, String timestamp, String signature, Duration maxAge) {
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
    if (maxAge != null) {
      Duration age = Duration.between(Instant.ofEpochSecond(seconds), clock.instant()).abs();
      if (age.compareTo(maxAge) > 0) {
        return new Refused(
            Refusal.UNAUTHORIZED,
            "The trigger was signed "
                + age.toSeconds()
                + " s from now; at most "
                + maxAge.toSeconds()
                + " s are accepted (replay protection): sign it again with the current time.");
      }
    }
    return null;
  }
}
