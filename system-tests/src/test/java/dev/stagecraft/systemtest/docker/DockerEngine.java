package dev.stagecraft.systemtest.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The local Docker engine for the tests that run the images: whether one answers (the only reason
 * these tests may be skipped, with one line saying so), {@code dev/images}, and commands ({@code
 * docker}, {@code docker-compose}) run as processes with their output kept. Stateless; each call
 * starts its own process and waits for it.
 */
public final class DockerEngine {
  private DockerEngine() {}

  /** What a command printed (stdout and stderr together) and returned. */
  public record Result(int exitCode, String output) {}

  /** Skips the calling test, with one line saying why, when no engine or no compose answers. */
  public static void assumeEngine() {
    boolean engine = answers(List.of("docker", "info"));
    assumeTrue(
        engine,
        "skipped: no Docker engine answers on this machine (`docker info` fails; start dockerd,"
            + " or run dev/test, which starts it when installed)");
    assumeTrue(
        answers(List.of("docker-compose", "version")),
        "skipped: docker-compose is not installed (apt-get install docker-compose)");
  }

  private static boolean answers(List<String> command) {
    try {
      return run(repoRoot(), Map.of(), Duration.ofSeconds(30), command).exitCode() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** Builds (or finds up to date) every image with {@code dev/images}; fails with its output. */
  public static void buildImages() throws IOException {
    Result r = run(repoRoot(), Map.of(), Duration.ofMinutes(30), List.of("dev/images", "--no-env"));
    assertThat(r.exitCode()).as("dev/images:\n%s", r.output()).isZero();
  }

  /**
   * {@code stagecraft -chdir=DIR ARGS...}: the packaged CLI pointed at {@code planner} with {@code
   * token}, its home (config, known hosts) in {@code home}.
   */
  public static Result cli(String planner, String token, Path home, Path dir, String... args)
      throws IOException {
    Path root = repoRoot();
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                root.resolve("cli/target/stagecraft-cli-app.jar").toString(),
                "-chdir=" + dir));
    command.addAll(List.of(args));
    Files.createDirectories(home);
    return run(
        root,
        Map.of(
            "STAGECRAFT_ADDR",
            planner,
            "STAGECRAFT_TOKEN",
            token,
            "HOME",
            home.toString(),
            "STAGECRAFT_HOME",
            home.toString()),
        Duration.ofMinutes(5),
        command);
  }

  /** Runs {@code command} in {@code dir} with {@code env} added; kills it after {@code timeout}. */
  public static Result run(
      Path dir, Map<String, String> env, Duration timeout, List<String> command)
      throws IOException {
    Path log = Files.createTempFile("docker-command", ".log");
    try {
      ProcessBuilder b =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      b.environment().putAll(env);
      Process p = b.start();
      boolean ended;
      try {
        ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
        throw new IOException("interrupted: " + command, e);
      }
      if (!ended) {
        p.destroyForcibly();
        return new Result(-1, "timed out after " + timeout + ": " + Files.readString(log));
      }
      return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** The repository root (the system tests run in {@code system-tests/}). */
  public static Path repoRoot() {
    Path here = Path.of("").toAbsolutePath();
    return Files.exists(here.resolve("system-tests")) ? here : here.getParent();
  }
}
