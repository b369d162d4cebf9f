package dev.stagecraft.lock.lease;

import java.time.Instant;

/**
 * A holder waiting for the lock.
 *
 * @param lastSeenAt when it last asked; a holder that stops asking loses its place
 * @param coalescingKey what the request is for (e.g. "deploy the newest revision of this
 *     workspace"), or null; a newer request with the same key replaces this one in the queue
 */
public record QueuedHolder(
    String holder, Instant enqueuedAt, Instant lastSeenAt, String coalescingKey) {

  public QueuedHolder(String holder, Instant enqueuedAt, Instant lastSeenAt) {
    this(holder, enqueuedAt, lastSeenAt, null);
  }
}
