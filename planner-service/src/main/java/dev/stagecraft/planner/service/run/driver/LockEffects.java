package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.WorkspaceLocks;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunMessages;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a run's workspace-lock effects through {@link WorkspaceLocks} (part of the run's
 * {@link EffectHandler}, docs/adr/0073): asks for the lock (a long poll, on a virtual thread of its
 * own, so the run keeps taking commands — a cancel — while it waits) and answers {@link
 * RunCommand.LockGranted}, {@link RunCommand.LockQueued} or {@link RunCommand.Superseded}; renews
 * the lease every third of it while the run holds it, answering {@link RunCommand.LockLost} when
 * the lock service refuses; stops renewing and releases the lock.
 *
 * <p>Concurrency: {@link #handle} is called by the run's driver thread; the asks and heartbeats run
 * on their own threads and only enqueue their answers. The heartbeat tasks are kept per run id.
 */
public final class LockEffects {
  private static final Logger LOG = LoggerFactory.getLogger(LockEffects.class);

  /**
   * Whom the lock is asked for: the run (its id is the holder, so a restarted run keeps its place
   * in the queue or gets its lease back).
   *
   * @param info what the lock service shows about the holder
   * @param coalescingKey the run's coalescing key (docs/adr/0023)
   */
  public record Holder(
      String tenant, String workspace, String runId, String info, String coalescingKey) {}

  private final WorkspaceLocks locks;
  private final ScheduledExecutorService heartbeats;
  private final int leaseSeconds;
  private final int waitSeconds;
  private final Map<String, ScheduledFuture<?>> beating = new ConcurrentHashMap<>();
  private final Map<String, Runnable> renewals = new ConcurrentHashMap<>();

  /**
   * @param heartbeats runs the lease renewals (a blocking HTTP call each)
   * @param leaseSeconds the lease asked for
   * @param waitSeconds how long a waiting ask may be held by the lock service (a long poll)
   */
  public LockEffects(
      WorkspaceLocks locks,
      ScheduledExecutorService heartbeats,
      int leaseSeconds,
      int waitSeconds) {
    this.locks = locks;
    this.heartbeats = heartbeats;
    this.leaseSeconds = leaseSeconds;
    this.waitSeconds = waitSeconds;
  }

  /**
   * Carries out {@code effect} when it is a lock effect.
   *
   * @return false when it is not one (another part of the handler carries it out)
   */
  public boolean handle(
      RunEffect effect, RunState state, Holder holder, Consumer<RunCommand> reply) {
    switch (effect) {
      case RunEffect.RequestLock r ->
          Thread.ofVirtual()
              .name("lock-" + holder.runId())
              .start(() -> reply.accept(ask(r, holder)));
      case RunEffect.StartHeartbeat h -> startHeartbeat(h, state, holder, reply);
      case RunEffect.StopHeartbeat s -> stopHeartbeat(holder.runId());
      case RunEffect.ReleaseLock r ->
          locks.release(holder.tenant(), holder.workspace(), r.lockId());
      default -> {
        return false;
      }
    }
    return true;
  }

  /** The lock service's answer as the run's command; a failure as {@code EffectFailed}. */
  private RunCommand ask(RunEffect.RequestLock r, Holder holder) {
    try {
      WorkspaceLocks.Acquisition a =
          locks.acquire(
              holder.tenant(),
              holder.workspace(),
              holder.runId(),
              leaseSeconds,
              // the first ask does not wait, so a run that has to queue says so (and where) at once
              r.waiting() ? waitSeconds : 0,
              holder.info(),
              holder.coalescingKey());
      return switch (a) {
        case WorkspaceLocks.Granted g -> new RunCommand.LockGranted(g.lockId(), g.fencingToken());
        case WorkspaceLocks.Queued q -> new RunCommand.LockQueued(q.position());
        case WorkspaceLocks.Superseded s ->
            new RunCommand.Superseded(s.byHolder(), holder.coalescingKey());
      };
    } catch (RuntimeException e) {
      return new RunCommand.EffectFailed(r, String.valueOf(e.getMessage()));
    }
  }

  private void startHeartbeat(
      RunEffect.StartHeartbeat h, RunState state, Holder holder, Consumer<RunCommand> reply) {
    long token = state.lock() == null ? 0 : state.lock().fencingToken();
    long period = Math.max(1, leaseSeconds / 3);
    Runnable renewal = () -> renew(h.lockId(), token, holder, reply);
    renewals.put(holder.runId(), renewal);
    ScheduledFuture<?> task =
        heartbeats.scheduleAtFixedRate(
            renewal,
            // a lease got back after a restart is renewed at once
            h.renewNow() ? 0 : period,
            period,
            TimeUnit.SECONDS);
    ScheduledFuture<?> previous = beating.put(holder.runId(), task);
    if (previous != null) {
      previous.cancel(false);
    }
  }

  private void renew(String lockId, long token, Holder holder, Consumer<RunCommand> reply) {
    try {
      if (!locks.heartbeat(holder.tenant(), holder.workspace(), lockId)) {
        stopHeartbeat(holder.runId());
        reply.accept(
            new RunCommand.LockLost(
                RunCommand.LockLoss.HEARTBEAT_REFUSED,
                lockId,
                token,
                RunMessages.heartbeatRefused()));
      }
    } catch (RuntimeException e) {
      // the lock service unreachable for a moment: the next beat tries again within the lease
      LOG.warn("run {}: lock heartbeat failed: {}", holder.runId(), e.toString());
    }
  }

  /** Renews the run's lease now, on the caller's thread, as its next heartbeat would. */
  public void renewNow(String runId) {
    Runnable renewal = renewals.get(runId);
    if (renewal != null) {
      renewal.run();
    }
  }

  void stopHeartbeat(String runId) {
    renewals.remove(runId);
    ScheduledFuture<?> task = beating.remove(runId);
    if (task != null) {
      task.cancel(false);
    }
  }

  /** Whether the run's lease is being renewed (for tests and shutdown logs). */
  public boolean renewing(String runId) {
    return beating.containsKey(runId);
  }
}
