package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.ServiceJvm;
import dev.stagecraft.devstack.StackFiles;
import dev.stagecraft.devstack.StackInfo;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts the dev stack supervisor ({@code devstack/target/devstack.jar}) as a child process, in the
 * foreground or detached, with the JDK that runs the CLI.
 */
final class DevStackLauncher {
  private static final Duration DETACHED_START_TIMEOUT = Duration.ofMinutes(5);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final CliContext context;
  private final Path repo;

  DevStackLauncher(CliContext context) {
    this.context = context;
    this.repo = repoRoot(context);
  }

  /** {@code STAGECRAFT_REPO}, else three levels up from {@code cli/target/stagecraft-cli.jar}. */
  static Path repoRoot(CliContext context) {
    String fromEnv = context.env("STAGECRAFT_REPO");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Path.of(fromEnv).toAbsolutePath().normalize();
    }
    try {
      Path location =
          Path.of(
              DevStackLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return location.getParent().getParent().getParent();
    } catch (URISyntaxException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot find the Stagecraft repository; set STAGECRAFT_REPO", e);
    }
  }

  Path devstackJar() {
    Path jar = repo.resolve("devstack").resolve("target").resolve("devstack-app.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " does not exist. Build Stagecraft first (./stagecraft does it for you).");
    }
    return jar;
  }

  /** Runs the supervisor with this terminal and returns its exit code (0 after Ctrl-C). */
  int runForeground(Path dataDir) throws IOException, InterruptedException {
    ProcessBuilder builder = builder(dataDir).inheritIO();
    Process supervisor = builder.start();
    // Ctrl-C reaches the supervisor too (same process group); SIGTERM to the CLI alone does not.
    // Either way, wait for it to finish its clean shutdown before this JVM exits.
    Thread hook =
        new Thread(
            () -> {
              if (supervisor.isAlive()) {
                supervisor.destroy();
                try {
                  supervisor.waitFor(90, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            },
            "stagecraft-up-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    int code = supervisor.waitFor();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is already running
    }
    // 130/143: stopped by SIGINT/SIGTERM after a clean shutdown
    return code == 130 || code == 143 ? 0 : code;
  }

  /**
   * Starts the supervisor in its own session with output to {@code logs/devstack.log} and returns
   * once {@code stack.json} is written and the planner is healthy.
   */
  StackInfo startDetached(Path dataDir) throws IOException, InterruptedException {
    DevStackLayout layout = new DevStackLayout(dataDir);
    Files.createDirectories(layout.logsDir());
    Path log = layout.supervisorLog();
    Files.writeString(
        log,
        "---- " + Instant.now() + " stagecraft up -detach\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    ProcessBuilder builder =
        builder(dataDir)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Optional<Path> setsid = onPath("setsid");
    if (setsid.isPresent()) {
      // A new session: Ctrl-C or closing this terminal does not reach the stack.
      builder.command().add(0, setsid.get().toString());
    }
    Process supervisor = builder.start();
    long deadline = System.nanoTime() + DETACHED_START_TIMEOUT.toNanos();
    while (true) {
      Optional<StackInfo> info = StackFiles.readQuietly(layout.stackFile(), StackInfo.class);
      if (info.isPresent() && info.get().pid() == supervisor.pid() && healthy(info.get())) {
        return info.get();
      }
      if (!supervisor.isAlive()) {
        throw new IllegalStateException(
            "the dev stack did not start (exit code "
                + supervisor.exitValue()
                + "); see "
                + log
                + tail(log));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the dev stack did not start within "
                + DETACHED_START_TIMEOUT.toMinutes()
                + " minutes; it is still running as pid "
                + supervisor.pid()
                + " (stop it with ./stagecraft down); see "
                + log);
      }
      Thread.sleep(250);
    }
  }

  private ProcessBuilder builder(Path dataDir) {
    List<String> command = new ArrayList<>();
    command.add(javaCommand());
    // the dev stack's JVM runs the embedded broker: the services' JIT options (docs/adr/0048)
    command.addAll(ServiceJvm.JIT_OPTIONS);
    command.add("-jar");
    command.add(devstackJar().toString());
    command.add("--data-dir");
    command.add(dataDir.toString());
    command.add("--repo");
    command.add(repo.toString());
    ProcessBuilder builder = new ProcessBuilder(command).directory(context.workingDir().toFile());
    builder.environment().clear();
    builder.environment().putAll(context.env());
    return builder;
  }

  static String javaCommand() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private Optional<Path> onPath(String program) {
    String path = context.env("PATH");
    if (path == null) {
      path = "/usr/bin:/bin";
    }
    for (String dir : path.split(File.pathSeparator, -1)) {
      if (dir.isEmpty()) {
        continue; // not the JVM's working directory
      }
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  static boolean healthy(StackInfo info) {
    try {
      return HTTP.send(
                  HttpRequest.newBuilder(URI.create(info.planner() + "/health"))
                      .timeout(Duration.ofSeconds(2))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException | IllegalArgumentException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return "\n  "
          + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }
}
