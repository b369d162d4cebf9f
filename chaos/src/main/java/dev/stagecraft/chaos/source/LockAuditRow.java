package dev.stagecraft.chaos.source;

import java.time.Instant;

/**
 * One row of the lock service's audit trail ({@code lock.lock_events}), in id order.
 *
 * @param type {@code acquired}, {@code released}, {@code expired}, {@code force_released}, {@code
 *     enqueued}, {@code superseded}, {@code abandoned}
 * @param lockId set on acquired/released/expired/force_released
 * @param fencingToken set with {@code lockId}
 * @param actor for {@code superseded}: the newer holder that took the place; for {@code
 *     force_released}: who forced it
 */
public record LockAuditRow(
    long id,
    String tenant,
    String workspace,
    String type,
    String lockId,
    String holder,
    Long fencingToken,
    String actor,
    Instant at) {}
