package dev.stagecraft.lock.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/**
 * The lock of one workspace: the current lease (or null), the last fencing token ever issued, and
 * the FIFO queue of waiting holders. Immutable; changed only by {@link #apply}.
 */
public record WorkspaceLock(LockLease current, long lastFencingToken, List<QueuedHolder> queue) {

  public static final WorkspaceLock FREE = new WorkspaceLock(null, 0, List.of());

  public WorkspaceLock {
    queue = List.copyOf(queue);
  }

  /** 0-based place of the holder in the queue, if queued. */
  public OptionalInt indexOf(String holder) {
    return IntStream.range(0, queue.size())
        .filter(i -> queue.get(i).holder().equals(holder))
        .findFirst();
  }

  public WorkspaceLock applyAll(List<LockEvent> events) {
    WorkspaceLock state = this;
    for (LockEvent event : events) {
      state = state.apply(event);
    }
    return state;
  }

  public WorkspaceLock apply(LockEvent event) {
    return switch (event) {
      case LockEvent.Acquired a ->
          new WorkspaceLock(a.lease(), a.lease().fencingToken(), without(a.lease().holder()));
      case LockEvent.Renewed r ->
          new WorkspaceLock(
              new LockLease(
                  current.lockId(),
                  current.holder(),
                  current.fencingToken(),
                  current.acquiredAt(),
                  current.leaseDuration(),
                  r.leaseExpiresAt(),
                  current.info()),
              lastFencingToken,
              queue);
      case LockEvent.Released r -> new WorkspaceLock(null, lastFencingToken, queue);
      case LockEvent.ForceReleased f -> new WorkspaceLock(null, lastFencingToken, queue);
      case LockEvent.Expired e -> new WorkspaceLock(null, lastFencingToken, queue);
      case LockEvent.Enqueued e -> {
        List<QueuedHolder> next = new ArrayList<>(queue);
        next.add(new QueuedHolder(e.holder(), e.at(), e.at()));
        yield new WorkspaceLock(current, lastFencingToken, next);
      }
      case LockEvent.StillWaiting s ->
          new WorkspaceLock(
              current,
              lastFencingToken,
              queue.stream()
                  .map(
                      q ->
                          q.holder().equals(s.holder())
                              ? new QueuedHolder(q.holder(), q.enqueuedAt(), s.at())
                              : q)
                  .toList());
      case LockEvent.Abandoned a ->
          new WorkspaceLock(current, lastFencingToken, without(a.holder()));
    };
  }

  private List<QueuedHolder> without(String holder) {
    return queue.stream().filter(q -> !q.holder().equals(holder)).toList();
  }
}
