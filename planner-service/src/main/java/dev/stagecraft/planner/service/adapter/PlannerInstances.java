package dev.stagecraft.planner.service.adapter;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.InstanceStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.recovery.InstanceLease;
import dev.stagecraft.planner.service.run.recovery.RecoveryCause;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This planner instance's liveness and the adoption of dead instances' runs (docs/adr/0034).
 *
 * <p>At creation it registers its row ({@code planner.instances}) as a new incarnation — before
 * {@link RunRecovery} reads its own unfinished runs, so that no other instance adopts them from
 * then on — and renews it every heartbeat. Once {@link #startAdopting} is called (after the startup
 * recovery), it also looks every heartbeat for instances whose lease expired and that still own
 * non-terminal runs, adopts them ({@link InstanceStore#adopt}: at most one adopter per run) and
 * hands them to the given {@link Adopter} — the same recovery as a restart.
 *
 * <p>Self-fencing: when a renewal finds the row adopted (or registered again by a newer process of
 * the same id), or no renewal succeeded for {@link InstanceLease#fenceAfter}, the instance must not
 * drive its runs any more: it logs why and halts the process at once ({@link Runtime#halt}: no
 * shutdown hook runs, so nothing more is recorded, published or released on behalf of runs another
 * instance now owns); a supervisor starts it again, and it then registers anew.
 *
 * <p>Threads: three daemon threads of their own — the renewal (may block on the database), the
 * watchdog (never blocks, so a hung renewal cannot keep it from fencing) and the adoption (reads
 * {@code stagecraft.actions}, so it may take seconds; never delays a renewal). Thread-safe.
 */
@Singleton
public final class PlannerInstances implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PlannerInstances.class);

  /** The exit status of a process that fenced itself (EX_TEMPFAIL: start it again). */
  public static final int FENCED_EXIT_STATUS = 75;

  /** Takes over runs adopted from a dead instance. */
  @FunctionalInterface
  public interface Adopter {
    /** Called on the adoption thread with the adopted runs, oldest first (never empty). */
    void adopted(RecoveryCause.Adoption cause, List<RunStore.UnfinishedRun> runs) throws Exception;
  }

  private final InstanceStore store;
  private final String instanceId;
  private final String incarnation = UUID.randomUUID().toString();
  private final InstanceLease lease;
  private final LongSupplier nanoTime;
  private final Consumer<String> fence;
  private final ScheduledExecutorService renewal = daemon("planner-instance-renewal");
  private final ScheduledExecutorService watchdog = daemon("planner-instance-watchdog");
  private final ScheduledExecutorService adoption = daemon("planner-instance-adoption");
  private final AtomicBoolean fenced = new AtomicBoolean();
  private volatile long lastRenewalStart;
  private volatile String lastRenewalError;

  @Inject
  PlannerInstances(
      PlannerSettings settings,
      HikariDataSource dataSource,
      @Value("${stagecraft.planner.instance-heartbeat:2s}") Duration heartbeat,
      @Value("${stagecraft.planner.instance-lease:15s}") Duration lease)
      throws SQLException {
    this(
        new InstanceStore(dataSource),
        settings.getInstanceId(),
        settings.getPlannerAdvertisedUrl(),
        new InstanceLease(heartbeat, lease),
        System::nanoTime,
        PlannerInstances::halt);
  }

  /**
   * Registers the instance and starts renewing.
   *
   * @param nanoTime a monotonic clock (nanoseconds) for the watchdog
   * @param fence what fencing does, given the reason (in service: log and halt)
   */
  public PlannerInstances(
      InstanceStore store,
      String instanceId,
      InstanceLease lease,
      LongSupplier nanoTime,
      Consumer<String> fence)
      throws SQLException {
    this(store, instanceId, null, lease, nanoTime, fence);
  }

  /**
   * Registers the instance, advertising {@code advertisedUrl} (null: nowhere) as where it answers
   * the public API (docs/adr/0050), and starts renewing.
   */
  public PlannerInstances(
      InstanceStore store,
      String instanceId,
      String advertisedUrl,
      InstanceLease lease,
      LongSupplier nanoTime,
      Consumer<String> fence)
      throws SQLException {
    this.store = store;
    this.instanceId = instanceId;
    this.lease = lease;
    this.nanoTime = nanoTime;
    this.fence = fence;
    lastRenewalStart = nanoTime.getAsLong();
    store.register(instanceId, incarnation, lease.lease(), advertisedUrl);
    LOG.info(
        "planner instance {} registered (heartbeat {} ms, lease {} ms, advertised at {})",
        instanceId,
        lease.heartbeat().toMillis(),
        lease.lease().toMillis(),
        advertisedUrl == null
            ? "no address: STAGECRAFT_PLANNER_ADVERTISED_URL unset"
            : advertisedUrl);
    long beat = lease.heartbeat().toMillis();
    renewal.scheduleWithFixedDelay(this::renew, beat, beat, TimeUnit.MILLISECONDS);
    long look = Math.max(10, beat / 4);
    watchdog.scheduleWithFixedDelay(this::watch, look, look, TimeUnit.MILLISECONDS);
  }

  /** This instance's id. */
  public String instanceId() {
    return instanceId;
  }

  /** This process's incarnation of the instance (registered at creation). */
  public String incarnation() {
    return incarnation;
  }

  /** Whether this instance fenced itself (only observable when fencing does not halt: tests). */
  public boolean fenced() {
    return fenced.get();
  }

  /**
   * Starts looking for dead instances' runs every heartbeat and hands those it adopts to {@code
   * adopter}. Call once, after the startup recovery.
   */
  public void startAdopting(Adopter adopter) {
    long beat = lease.heartbeat().toMillis();
    adoption.scheduleWithFixedDelay(() -> adoptOnce(adopter), beat, beat, TimeUnit.MILLISECONDS);
  }

  /**
   * One adoption round: adopts the runs of every instance whose lease expired, unless this instance
   * is not sure of its own lease. Returns how many runs were adopted.
   */
  int adoptOnce(Adopter adopter) {
    int adopted = 0;
    try {
      if (fenced.get() || !ownLeaseSafe()) {
        return 0;
      }
      for (String dead : store.expiredWithRuns(instanceId)) {
        Optional<List<RunStore.UnfinishedRun>> runs = store.adopt(dead, instanceId);
        if (runs.isEmpty() || runs.get().isEmpty()) {
          continue; // alive again, or another instance adopted them first
        }
        RecoveryCause.Adoption cause = new RecoveryCause.Adoption(instanceId, dead);
        LOG.warn(
            "{} run(s) {}: {}",
            runs.get().size(),
            cause.adoptedBy(),
            runs.get().stream().map(RunStore.UnfinishedRun::id).toList());
        adopted += runs.get().size();
        try {
          adopter.adopted(cause, runs.get());
        } catch (Exception e) {
          // the runs are this instance's now; the recovery ends each run it cannot resume, so
          // this is a failure to even record that (the database): a restart recovers them
          LOG.error(
              "could not carry on the runs {}: {}; they stay with planner instance {}, which"
                  + " recovers them when it restarts",
              cause.adoptedBy(),
              e.toString(),
              instanceId);
        }
      }
    } catch (SQLException | RuntimeException e) {
      // nothing was moved by the failed statement; the next round looks again
      LOG.warn("adoption round of planner instance {} failed: {}", instanceId, e.toString());
    }
    return adopted;
  }

  private boolean ownLeaseSafe() {
    return !lease.mustFence(Duration.ofNanos(nanoTime.getAsLong() - lastRenewalStart));
  }

  /** One renewal; fences when the row is no longer this incarnation's. */
  void renew() {
    if (fenced.get()) {
      return;
    }
    long started = nanoTime.getAsLong();
    try {
      switch (store.renew(instanceId, incarnation)) {
        case InstanceStore.Renewal.Renewed r -> {
          lastRenewalStart = started;
          lastRenewalError = null;
        }
        case InstanceStore.Renewal.TakenOver t ->
            fenceOnce(InstanceLease.takenOverMessage(instanceId, t.adoptedBy()));
      }
    } catch (SQLException | RuntimeException e) {
      lastRenewalError = e.toString();
      LOG.warn("planner instance {} could not renew its lease: {}", instanceId, e.toString());
    }
  }

  /**
   * Checks the lease before an effect another instance may carry out too (a publication): fences at
   * once, as the watchdog would on its next look, when no renewal succeeded for {@link
   * InstanceLease#fenceAfter}. A process that wakes from a pause longer than its lease (a stopped
   * VM, SIGSTOP) thus does not act for up to a look interval on runs another instance adopted
   * meanwhile. Never blocks; safe from any thread.
   *
   * @throws IllegalStateException when this instance is fenced (in service fencing halts the
   *     process first; tests see the exception)
   */
  public void checkLease() {
    watch();
    if (fenced.get()) {
      throw new IllegalStateException(
          "planner instance " + instanceId + " is fenced: it no longer acts for its runs");
    }
  }

  /** One look of the watchdog: fences when no renewal succeeded for too long. */
  void watch() {
    Duration since = Duration.ofNanos(nanoTime.getAsLong() - lastRenewalStart);
    if (lease.mustFence(since)) {
      fenceOnce(lease.notRenewedMessage(instanceId, since, lastRenewalError));
    }
  }

  private void fenceOnce(String reason) {
    if (fenced.compareAndSet(false, true)) {
      renewal.shutdownNow();
      watchdog.shutdownNow();
      adoption.shutdownNow();
      fence.accept(reason);
    }
  }

  private static void halt(String reason) {
    // the console appender writes synchronously: the line is out before the halt
    LOG.error("{} (exit status {})", reason, FENCED_EXIT_STATUS);
    Runtime.getRuntime().halt(FENCED_EXIT_STATUS);
  }

  /** Stops renewing and adopting (a clean shutdown: the row then expires like a dead one's). */
  @PreDestroy
  @Override
  public void close() {
    adoption.shutdownNow();
    watchdog.shutdownNow();
    renewal.shutdownNow();
  }

  private static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
