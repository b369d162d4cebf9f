package dev.stagecraft.chaos.soak;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Another instance of a service beside the dev stack's own (a second planner, more executors),
 * started by the soak from the packaged jar with the environment the dev stack would give it. Like
 * the dev stack, it is started again when it halts itself with exit status 75 (a planner that lost
 * its instance lease fences itself so). Thread-safe: the injector and the exit watcher share it.
 */
final class ExtraInstance implements SoakInstance {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final int RESTART_EXIT_STATUS = 75;

  private final String name;
  private final List<String> command;
  private final Map<String, String> env;
  private final int port;
  private final Path log;
  private final Duration healthTimeout;
  private Process process;
  private boolean closed;

  ExtraInstance(
      String name,
      List<String> command,
      Map<String, String> env,
      int port,
      Path log,
      Duration healthTimeout) {
    this.name = name;
    this.command = List.copyOf(command);
    this.env = Map.copyOf(env);
    this.port = port;
    this.log = log;
    this.healthTimeout = healthTimeout;
  }

  @Override
  public String name() {
    return name;
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  synchronized void start() throws IOException, InterruptedException {
    Files.writeString(
        log,
        "---- " + Instant.now() + " starting " + name + " on port " + port + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
    builder.environment().putAll(env);
    Process started = builder.start();
    process = started;
    started
        .onExit()
        .thenRun(() -> exited(started))
        .exceptionally(
            e -> {
              System.err.println("soak: watching " + name + "'s exit failed: " + e);
              return null;
            });
    awaitHealthy(started);
  }

  private void awaitHealthy(Process p) throws InterruptedException {
    long deadline = System.nanoTime() + healthTimeout.toNanos();
    while (!healthy()) {
      if (!p.isAlive()) {
        throw new IllegalStateException(
            name + " exited with code " + p.exitValue() + " while starting; see " + log);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            name + " did not answer /health within " + healthTimeout + "; see " + log);
      }
      Thread.sleep(200);
    }
  }

  private boolean healthy() {
    try {
      return HTTP.send(
                  HttpRequest.newBuilder(URI.create(url() + "/health"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @SuppressWarnings("ReferenceEquality") // identity: only the process started last counts
  private void exited(Process p) {
    synchronized (this) {
      if (closed || p != process) {
        return;
      }
      System.out.println("soak: " + name + " exited with code " + p.exitValue() + "; see " + log);
      if (p.exitValue() != RESTART_EXIT_STATUS) {
        return;
      }
    }
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                restart();
                System.out.println("soak: " + name + " started again");
              } catch (Exception e) {
                System.err.println("soak: starting " + name + " again failed: " + e);
              }
            });
  }

  @Override
  public synchronized OptionalLong pid() {
    return process != null && process.isAlive()
        ? OptionalLong.of(process.pid())
        : OptionalLong.empty();
  }

  @Override
  public synchronized void kill() throws Exception {
    if (process != null) {
      process.destroyForcibly();
      process.onExit().get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Starts it again, as the dev stack's supervisor does: a start that fails (the service exits
   * while starting, e.g. its Kafka group has not let go of the killed process's partitions yet) is
   * tried again after 1, 2, 4 and 8 s before the failure is the caller's.
   */
  @Override
  public void restart() throws Exception {
    Backoff.attempt(
        5,
        Duration.ofSeconds(1),
        () -> {
          synchronized (this) {
            if (closed || (process != null && process.isAlive())) {
              return;
            }
            start();
          }
        },
        e -> System.out.println("soak: starting " + name + " failed, trying again: " + e));
  }

  /** Stops it: SIGCONT (in case it is stopped), SIGTERM, SIGKILL after the grace. */
  void close(Duration grace) {
    Process p;
    synchronized (this) {
      closed = true;
      p = process;
    }
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      signal("CONT");
      p.destroy();
      if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      p.destroyForcibly();
    }
  }
}
