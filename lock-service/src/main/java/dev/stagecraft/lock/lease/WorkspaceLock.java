package dev.stagecraft.lock.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/**
 * The lock of one workspace: the current lease (or null), the last fencing token ever issued, the
 * FIFO queue of waiting holders, and the holders that newer requests with the same coalescing key
 * replaced. Immutable; changed only by {@link #apply}.
 */
public record WorkspaceLock(
    LockLease current,
    long lastFencingToken,
    List<QueuedHolder> queue,
    List<SupersededHolder> superseded) {

  public static final WorkspaceLock FREE = new WorkspaceLock(null, 0, List.of());

  public WorkspaceLock {
    queue = List.copyOf(queue);
    superseded = List.copyOf(superseded);
  }

  public WorkspaceLock(LockLease current, long lastFencingToken, List<QueuedHolder> queue) {
    this(current, lastFencingToken, queue, List.of());
  }

  /** The note left for {@code holder} if a newer request replaced it in the queue. */
  public Optional<SupersededHolder> supersededNote(String holder) {
    return superseded.stream().filter(s -> s.holder().equals(holder)).findFirst();
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
          new WorkspaceLock(
              a.lease(), a.lease().fencingToken(), without(a.lease().holder()), superseded);
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
              queue,
              superseded);
      case LockEvent.Released r -> new WorkspaceLock(null, lastFencingToken, queue, superseded);
      case LockEvent.ForceReleased f ->
          new WorkspaceLock(null, lastFencingToken, queue, superseded);
      case LockEvent.Expired e -> new WorkspaceLock(null, lastFencingToken, queue, superseded);
      case LockEvent.Enqueued e -> {
        List<QueuedHolder> next = new ArrayList<>(queue);
        next.add(new QueuedHolder(e.holder(), e.at(), e.at(), e.coalescingKey()));
        yield new WorkspaceLock(current, lastFencingToken, next, superseded);
      }
      case LockEvent.StillWaiting s ->
          new WorkspaceLock(
              current,
              lastFencingToken,
              queue.stream()
                  .map(
                      q ->
                          q.holder().equals(s.holder())
                              ? new QueuedHolder(
                                  q.holder(), q.enqueuedAt(), s.at(), q.coalescingKey())
                              : q)
                  .toList(),
              superseded);
      case LockEvent.Abandoned a ->
          new WorkspaceLock(current, lastFencingToken, without(a.holder()), superseded);
      case LockEvent.Superseded s -> {
        List<QueuedHolder> next =
            queue.stream()
                .map(
                    q ->
                        q.holder().equals(s.holder())
                            ? new QueuedHolder(s.byHolder(), s.at(), s.at(), s.coalescingKey())
                            : q)
                .toList();
        List<SupersededHolder> notes = new ArrayList<>(superseded);
        notes.removeIf(n -> n.holder().equals(s.holder()) || n.holder().equals(s.byHolder()));
        notes.add(new SupersededHolder(s.holder(), s.byHolder(), s.coalescingKey(), s.at()));
        yield new WorkspaceLock(current, lastFencingToken, next, notes);
      }
      case LockEvent.SupersededForgotten f ->
          new WorkspaceLock(
              current,
              lastFencingToken,
              queue,
              superseded.stream().filter(n -> !n.holder().equals(f.holder())).toList());
    };
  }

  private List<QueuedHolder> without(String holder) {
    return queue.stream().filter(q -> !q.holder().equals(holder)).toList();
  }
}
