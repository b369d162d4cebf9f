package dev.stagecraft.schemas.run;

/**
 * A run moved to a new status.
 *
 * @param status one of {@code pending}, {@code queued}, {@code planning}, {@code planned}, {@code
 *     planned_and_finished}, {@code applying}, {@code applied}, {@code errored}
 * @param message human-readable detail (redacted), e.g. the failure or the queue position
 */
public record RunTransitioned(String runId, String status, String message) {}
