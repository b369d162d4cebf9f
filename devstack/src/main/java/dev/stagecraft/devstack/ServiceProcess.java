package dev.stagecraft.devstack;

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
import java.util.concurrent.TimeUnit;

/**
 * One service running as its own OS process ({@link ServiceJvm#command}), its output appended to
 * its log file. Not thread-safe: the supervisor starts and stops it from one thread.
 */
final class ServiceProcess {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final StackService service;
  private final int port;
  private final Path logFile;
  private final Process process;
  private final long startedNanos = System.nanoTime();

  private ServiceProcess(StackService service, int port, Path logFile, Process process) {
    this.service = service;
    this.port = port;
    this.logFile = logFile;
    this.process = process;
  }

  static ServiceProcess start(
      StackService service,
      String javaCommand,
      Path jar,
      int port,
      Map<String, String> serviceEnv,
      Path logFile)
      throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          service.artifactId()
              + ": "
              + jar
              + " does not exist. Build the services first (./stagecraft builds them, or: mvn"
              + " -B -DskipTests package).");
    }
    return start(
        service, ServiceJvm.command(javaCommand, jar), jar.getParent(), port, serviceEnv, logFile);
  }

  /** Starts {@code command} as the service's process (tests: a stand-in for the service). */
  static ServiceProcess start(
      StackService service,
      List<String> command,
      Path directory,
      int port,
      Map<String, String> serviceEnv,
      Path logFile)
      throws IOException {
    Files.createDirectories(logFile.getParent());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    // Settings come only from us: drop whatever STAGECRAFT_* the supervisor itself was given.
    builder.environment().keySet().removeIf(name -> name.startsWith("STAGECRAFT_"));
    builder.environment().putAll(serviceEnv);
    Files.writeString(
        logFile,
        "---- " + Instant.now() + " starting " + service.artifactId() + " on port " + port + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    return new ServiceProcess(service, port, logFile, builder.start());
  }

  StackService service() {
    return service;
  }

  int port() {
    return port;
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  long pid() {
    return process.pid();
  }

  Process process() {
    return process;
  }

  Path logFile() {
    return logFile;
  }

  /** How long the process has been running (up to now, also after it exited). */
  Duration uptime() {
    return Duration.ofNanos(System.nanoTime() - startedNanos);
  }

  /** Whether {@code GET /health} answers 200 right now. */
  boolean healthy() {
    try {
      HttpResponse<Void> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url() + "/health"))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Polls {@code /health} until it answers 200.
   *
   * @throws IllegalStateException naming the service and its log when it exits or times out
   */
  void awaitHealthy(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!healthy()) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            service.artifactId()
                + " exited with code "
                + process.exitValue()
                + " while starting; see its log: "
                + logFile
                + tail());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            service.artifactId()
                + " did not become healthy within "
                + timeout.toSeconds()
                + " s (GET "
                + url()
                + "/health); see its log: "
                + logFile
                + tail());
      }
      Thread.sleep(200);
    }
  }

  /** Asks the process to stop (SIGTERM); {@link #awaitStopped} finishes the job. */
  void requestStop() {
    process.destroy();
  }

  /** Waits for the process to exit, kills it (and what it started) after {@code grace}. */
  void awaitStopped(Duration grace) throws InterruptedException {
    List<ProcessHandle> children = process.descendants().toList();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    children.forEach(ProcessHandle::destroyForcibly);
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(logFile);
      List<String> last = lines.subList(Math.max(0, lines.size() - 15), lines.size());
      return "\n  last lines of the log:\n    " + String.join("\n    ", last);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
