package dev.stagecraft.lock.lease;

import java.time.Instant;

/**
 * A queued holder that a newer request with the same coalescing key replaced. Kept so that the
 * replaced holder, when it asks again, learns why it is no longer queued instead of joining the
 * queue anew; forgotten after the queue timeout.
 *
 * @param byHolder the newer request that took its place
 */
public record SupersededHolder(
    String holder, String byHolder, String coalescingKey, Instant supersededAt) {}
