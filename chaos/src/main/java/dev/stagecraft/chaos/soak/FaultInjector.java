package dev.stagecraft.chaos.soak;

import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Injects a {@link FaultPlan} schedule into a {@link SoakCluster}, one fault at a time on its own
 * thread, and writes each to the fault log as {@code FaultLog} reads it ({@code <at> <kind>
 * <target> <clearedAt>}: a kill is cleared when the instance answers /health again, a stop at its
 * SIGCONT, a PostgreSQL or Kafka restart when the database or broker is up again, a sever or a
 * black hole at once: it hits the connections open at that instant). A fault whose target is not in
 * the cluster is skipped (written as a comment).
 */
final class FaultInjector implements AutoCloseable {
  private final SoakCluster cluster;
  private final List<PlannedFault> plan;
  private final Path logFile;
  private final PrintStream out;
  private final Clock clock;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final List<PlannedFault> injected = new ArrayList<>();
  private Thread thread;
  private volatile Exception failure;
  private Instant lastOver = Instant.MIN;

  FaultInjector(
      SoakCluster cluster, List<PlannedFault> plan, Path logFile, PrintStream out, Clock clock) {
    this.cluster = cluster;
    this.plan = List.copyOf(plan);
    this.logFile = logFile;
    this.out = out;
    this.clock = clock;
  }

  void start(Instant origin) {
    thread = Thread.ofPlatform().name("soak-faults").start(() -> run(origin));
  }

  private void run(Instant origin) {
    try (Writer log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
      log.write("# <at> <kind> <target> <clearedAt>\n");
      for (PlannedFault f : plan) {
        Duration wait = Duration.between(clock.instant(), origin.plus(f.offset()));
        if (stop.await(Math.max(0, wait.toMillis()), TimeUnit.MILLISECONDS)) {
          return;
        }
        if (!f.target().equals("postgres")
            && !f.target().equals("kafka")
            && !cluster.has(f.target())
            && !cluster.network().has(f.target())) {
          log.write("# skipped (no such instance): " + f + "\n");
          log.flush();
          continue;
        }
        out.println("soak: fault " + f);
        Instant at = clock.instant();
        try {
          inject(f);
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          // the fault happened (a kill, a stop) but clearing it failed (a restart that did not
          // come up): logged, and the schedule goes on; a later kill of the instance starts it
          out.println("soak: clearing fault " + f + " failed: " + e);
          log.write("# clearing failed: " + f + ": " + e + "\n");
        }
        Instant cleared = clock.instant();
        log.write(at + " " + f.kind().logName() + " " + f.target() + " " + cleared + "\n");
        log.flush();
        synchronized (injected) {
          injected.add(f);
          lastOver = cleared;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      failure = e;
      out.println("soak: injecting faults failed: " + e);
    }
  }

  private void inject(PlannedFault f) throws Exception {
    switch (f.kind()) {
      case KILL -> {
        SoakInstance i = cluster.instance(f.target());
        i.kill();
        i.restart();
      }
      case STOP -> {
        SoakInstance i = cluster.instance(f.target());
        i.signal("STOP");
        try {
          stop.await(f.hold().toMillis(), TimeUnit.MILLISECONDS);
        } finally {
          i.signal("CONT");
        }
      }
      case POSTGRES_RESTART -> {
        cluster.stack().stopPostgres();
        try {
          stop.await(f.hold().toMillis(), TimeUnit.MILLISECONDS);
        } finally {
          cluster.stack().startPostgres();
        }
      }
      case KAFKA_RESTART -> {
        // the clients see the broker go away at the start of the controlled shutdown, which takes
        // seconds of its own on a loaded machine, as does the start: printed, for the report
        Instant stopping = clock.instant();
        cluster.stack().stopKafka();
        Instant stopped = clock.instant();
        try {
          stop.await(f.hold().toMillis(), TimeUnit.MILLISECONDS);
        } finally {
          Instant starting = clock.instant();
          cluster.stack().startKafka(); // returns once it authenticates every principal again
          out.println(
              "soak: kafka stopped in "
                  + seconds(stopping, stopped)
                  + ", started again in "
                  + seconds(starting, clock.instant()));
        }
      }
      case SEVER, BLACK_HOLE -> {
        int open = cluster.network().cut(f.target(), f.kind() == FaultKind.BLACK_HOLE);
        out.println("soak: " + f.kind().logName() + " hit " + open + " open connection(s)");
      }
    }
  }

  private static String seconds(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0 + " s";
  }

  /** Whether faults of the schedule are still to come (or one is under way). */
  boolean pending() {
    return thread != null && thread.isAlive();
  }

  /** The faults injected so far. */
  List<PlannedFault> injected() {
    synchronized (injected) {
      return List.copyOf(injected);
    }
  }

  /** When the last fault injected so far was over ({@link Instant#MIN} before the first). */
  Instant lastOver() {
    synchronized (injected) {
      return lastOver;
    }
  }

  /** The exception that ended the injection early, or null. */
  Exception failure() {
    return failure;
  }

  /** Stops injecting: a fault under way is cleared (the process continued, restarted). */
  @Override
  public void close() throws InterruptedException {
    stop.countDown();
    if (thread != null) {
      thread.join(Duration.ofMinutes(3));
    }
  }
}
