package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.StackCredentials;
import dev.stagecraft.devstack.StackService;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A planner process of its own instance id beside a dedicated stack's planner: the settings the dev
 * stack gives its planner, plus the given ones, on a free port; its output in {@code <stack
 * root>/<instance id>.log}. For tests of several planner instances (logs served by another
 * instance, adoption of a dead instance's runs).
 */
final class PlannerProcess implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Process process;
  private final String url;
  private final Path log;

  private PlannerProcess(Process process, String url, Path log) {
    this.process = process;
    this.url = url;
    this.log = log;
  }

  /** Starts the planner and returns once it answers {@code /health} (fails if it exits first). */
  static PlannerProcess start(SharedStack stack, String instanceId, Map<String, String> settings)
      throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    DevStackLayout layout = new DevStackLayout(stack.dataDir);
    var info = stack.stack().info();
    Path jar = SharedStack.repoRoot().resolve("planner-service/target/planner-service-app.jar");
    Path log = stack.root.resolve(instanceId + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(
                dev.stagecraft.devstack.ServiceJvm.command(
                    ProcessHandle.current().info().command().orElse("java"), jar))
            .directory(jar.getParent().toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
    Map<String, String> env = new HashMap<>(settings);
    env.put("STAGECRAFT_PORT", Integer.toString(port));
    env.putAll(stack.stack().kafkaEnv(StackService.PLANNER));
    env.putAll(StackCredentials.read(layout).env(StackService.PLANNER));
    env.put("STAGECRAFT_INSTANCE_ID", instanceId);
    env.putIfAbsent("STAGECRAFT_PLANNER_ADVERTISED_URL", "http://127.0.0.1:" + port);
    env.putAll(stack.stack().databaseEnv());
    env.put("STAGECRAFT_STATE_URL", info.state());
    env.put("STAGECRAFT_LOCK_URL", info.lock());
    env.put("STAGECRAFT_PUBLIC_STATE_URL", info.state());
    env.put("STAGECRAFT_PUBLIC_LOCK_URL", info.lock());
    env.put("STAGECRAFT_SECRETS_KEYS", Files.readString(layout.secretsKeysFile()).strip());
    env.put("STAGECRAFT_SECRETS_REQUIRED", "true");
    builder.environment().putAll(env);
    PlannerProcess planner = new PlannerProcess(builder.start(), "http://127.0.0.1:" + port, log);
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .until(
              () -> {
                assertThat(planner.process.isAlive())
                    .as("planner " + instanceId + " exited; see " + log)
                    .isTrue();
                return HTTP.send(
                            HttpRequest.newBuilder(URI.create(planner.url + "/health")).build(),
                            HttpResponse.BodyHandlers.ofString())
                        .statusCode()
                    == 200;
              });
    } catch (RuntimeException | Error e) {
      planner.close();
      throw e;
    }
    return planner;
  }

  Process process() {
    return process;
  }

  /** Its base URL, {@code http://127.0.0.1:<port>}. */
  String url() {
    return url;
  }

  Path log() {
    return log;
  }

  /** Stops it (SIGTERM, then SIGKILL after 30 s); also resumes a process stopped with SIGSTOP. */
  @Override
  public void close() throws Exception {
    if (!process.isAlive()) {
      return;
    }
    new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor();
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor();
    }
  }
}
