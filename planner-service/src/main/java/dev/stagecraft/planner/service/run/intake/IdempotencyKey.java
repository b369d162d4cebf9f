package dev.stagecraft.planner.service.run.intake;

/**
 * What makes a repeated {@link Submission} harmless. Each kind has its own retention policy:
 *
 * <ul>
 *   <li>{@link Api}: the public API's {@code Idempotency-Key} header, remembered per tenant,
 *       workspace and key for the API's retention window ({@code
 *       STAGECRAFT_PLANNER_IDEMPOTENCY_RETENTION}, 24h); the same key with another body is refused.
 *       The run gets a fresh id.
 *   <li>{@link Trigger}: a signed trigger's idempotency key, never forgotten or reassigned; the run
 *       id is derived from the tenant and the key ({@code RunCoordinator.runIdFor}), so a bot can
 *       compute it.
 *   <li>{@link None}: every submission starts a run.
 * </ul>
 *
 * <p>Both keyed kinds are recorded durably before the run starts ("record before the side effect"),
 * so a retry on this planner, on another one or after a restart starts nothing twice.
 */
public sealed interface IdempotencyKey {

  /** No key: the submission starts a run each time. */
  record None() implements IdempotencyKey {}

  /**
   * The public API's {@code Idempotency-Key}.
   *
   * @param key the header's value, as sent
   * @param canonicalRequest the request body in a canonical form: a retry must send the same; only
   *     its keyed digest is stored, never the body (it holds variable values)
   */
  record Api(String key, byte[] canonicalRequest) implements IdempotencyKey {
    /** The key as stored: per workspace ({@code api/<workspace>/<key>}). */
    public String storedKey(String workspace) {
      return "api/" + workspace + "/" + key;
    }
  }

  /** A trigger's signed idempotency key (docs/chatops.md). */
  record Trigger(String key) implements IdempotencyKey {}
}
