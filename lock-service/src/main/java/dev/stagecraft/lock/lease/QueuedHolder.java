package dev.stagecraft.lock.lease;

import java.time.Instant;

/**
 * A holder waiting for the lock.
 *
 * @param lastSeenAt when it last asked; a holder that stops asking loses its place
 */
public record QueuedHolder(String holder, Instant enqueuedAt, Instant lastSeenAt) {}
