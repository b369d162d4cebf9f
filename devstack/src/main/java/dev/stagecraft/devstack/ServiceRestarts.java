package dev.stagecraft.devstack;

import java.io.PrintStream;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Starts a service process again when it exits without being asked to stop, as compose's {@code
 * restart: unless-stopped} does: after a delay of {@link RestartBackoff} (1 s, 2 s, 4 s … 30 s,
 * from 1 s again once a process stayed up 30 s), each exit and restart logged. A service stopped on
 * purpose ({@link #stoppedOnPurpose}, e.g. a failure test's kill) stays down until it is started
 * again by hand; after {@link #close} (the stack stops) nothing is restarted.
 *
 * <p>Concurrency: thread-safe. Exits are handled on the threads that complete {@link
 * Process#onExit}, restarts on one scheduler thread of its own.
 */
final class ServiceRestarts implements AutoCloseable {

  /** The supervisor whose services are restarted. */
  interface Host {
    /**
     * Starts the service of {@code exited} again, unless it was replaced (or the stack stops) in
     * the meantime: atomically with those changes. Returns once the new process answers its health
     * check.
     *
     * @return the new process, or null when nothing was started
     */
    ServiceProcess restartIfCurrent(ServiceProcess exited) throws Exception;

    /** Whether {@code p} is still the service's process (no other was started since). */
    boolean isCurrent(ServiceProcess p);
  }

  private final Host host;
  private final PrintStream out;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("devstack-restarts").factory());
  private final Map<StackService, RestartBackoff> backoff = new EnumMap<>(StackService.class);
  private final Set<StackService> stopped = EnumSet.noneOf(StackService.class);
  private boolean closed;

  ServiceRestarts(Host host, PrintStream out) {
    this.host = host;
    this.out = out;
  }

  /**
   * Watches a started process of a service (and marks the service as not stopped on purpose).
   *
   * @return completes once the process's exit was handled (a restart scheduled, or not)
   */
  CompletableFuture<Void> watch(ServiceProcess p) {
    synchronized (this) {
      stopped.remove(p.service());
    }
    return p.process().onExit().thenRun(() -> exited(p));
  }

  /** The service's process is being stopped on purpose: it is not restarted when it exits. */
  synchronized void stoppedOnPurpose(StackService service) {
    stopped.add(service);
  }

  private void exited(ServiceProcess p) {
    StackService s = p.service();
    int code = p.process().exitValue();
    Duration uptime = p.uptime();
    String what =
        s.artifactId()
            + " (pid "
            + p.pid()
            + ") exited with code "
            + code
            + " after "
            + uptime.toSeconds()
            + " s";
    RestartBackoff.Restart restart;
    synchronized (this) {
      if (closed) {
        return; // the stack stops: exits are expected
      }
      if (stopped.contains(s)) {
        out.println(what + "; stopped on purpose, not restarted");
        return;
      }
      restart = backoff.computeIfAbsent(s, k -> new RestartBackoff()).next(uptime);
      out.println(
          "warning: "
              + what
              + "; restarting it in "
              + seconds(restart.delay())
              + " (attempt "
              + restart.attempt()
              + "); see "
              + p.logFile());
      scheduler.schedule(
          () -> restart(p, restart.attempt()), restart.delay().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void restart(ServiceProcess exited, int attempt) {
    synchronized (this) {
      if (closed || stopped.contains(exited.service())) {
        return;
      }
    }
    try {
      ServiceProcess started = host.restartIfCurrent(exited);
      if (started != null) {
        out.println(
            exited.service().artifactId()
                + " started again (pid "
                + started.pid()
                + ", attempt "
                + attempt
                + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } catch (Exception e) {
      out.println(
          "warning: starting "
              + exited.service().artifactId()
              + " again (attempt "
              + attempt
              + ") failed: "
              + e.getMessage());
      // a process that exited while starting is restarted again by its own watch; when none
      // could be started (a missing jar), this tries again
      if (host.isCurrent(exited)) {
        retry(exited);
      }
    }
  }

  private synchronized void retry(ServiceProcess exited) {
    if (closed || stopped.contains(exited.service())) {
      return;
    }
    RestartBackoff.Restart again = backoff.get(exited.service()).next(Duration.ZERO);
    out.println(
        "restarting "
            + exited.service().artifactId()
            + " in "
            + seconds(again.delay())
            + " (attempt "
            + again.attempt()
            + ")");
    scheduler.schedule(
        () -> restart(exited, again.attempt()), again.delay().toMillis(), TimeUnit.MILLISECONDS);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** No more restarts; a restart under way is interrupted and awaited. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    scheduler.shutdownNow();
    try {
      if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
        out.println("warning: a service restart did not end within 30 s of the stop");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
