package dev.stagecraft.systemtest.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One docker-compose project of the repository's docker-compose.yml, as an operator runs it: its
 * own project name, generated secrets (what {@code .env} holds), the images {@code dev/images}
 * built, and free host ports for the planner and the state service. Not thread-safe: one test
 * drives it.
 */
final class ComposeStack {
  private static final List<String> KAFKA_USERS =
      List.of("BROKER", "ADMIN", "PLANNER", "EXECUTOR", "STATE", "LOCK", "TRIGGER");

  final String project;
  final int plannerPort;
  final int statePort;
  final Map<String, String> env = new HashMap<>();

  ComposeStack(String project) throws IOException {
    this.project = project;
    this.plannerPort = freePortPair();
    this.statePort = freePort();
    for (String v :
        List.of("SERVICE_TOKEN_PLANNER", "SERVICE_TOKEN_STATE", "OPERATOR_TOKEN", "DB_PASSWORD")) {
      env.put("STAGECRAFT_" + v, randomHex());
    }
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    env.put("STAGECRAFT_SECRETS_KEYS", "k1:" + Base64.getEncoder().encodeToString(key));
    KAFKA_USERS.forEach(u -> env.put("STAGECRAFT_KAFKA_" + u + "_PASSWORD", randomHex()));
    env.put("STAGECRAFT_KAFKA_IMAGE", "stagecraft/kafka:local");
    env.put("STAGECRAFT_POSTGRES_IMAGE", "stagecraft/postgres:local");
    env.put("STAGECRAFT_JRE_IMAGE", "stagecraft/jre:local");
    // a range: a scaled planner's containers each take a port of it (README "With Docker")
    env.put("STAGECRAFT_PLANNER_PORT", plannerPort + "-" + (plannerPort + 1));
    env.put("STAGECRAFT_STATE_PORT", String.valueOf(statePort));
    env.put("STAGECRAFT_PUBLIC_STATE_URL", stateUrl());
    env.put("STAGECRAFT_PUBLIC_LOCK_URL", stateUrl());
  }

  /** The first planner container's published address. */
  String plannerUrl() throws IOException {
    return plannerUrls(1).get(0);
  }

  /** The published addresses of the first {@code count} planner containers. */
  List<String> plannerUrls(int count) throws IOException {
    List<String> urls = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      String published =
          compose(Duration.ofSeconds(30), "port", "--index=" + i, "planner-service", "8080")
              .output()
              .strip();
      urls.add("http://127.0.0.1:" + published.substring(published.lastIndexOf(':') + 1));
    }
    return urls;
  }

  String stateUrl() {
    return "http://127.0.0.1:" + statePort;
  }

  /** {@code docker-compose -p PROJECT ARGS...} in the repository root; asserts it succeeded. */
  DockerEngine.Result compose(Duration timeout, String... args) throws IOException {
    DockerEngine.Result r = composeMayFail(timeout, args);
    assertThat(r.exitCode()).as("docker-compose %s:\n%s", List.of(args), r.output()).isZero();
    return r;
  }

  DockerEngine.Result composeMayFail(Duration timeout, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("docker-compose", "-p", project));
    command.addAll(List.of(args));
    return DockerEngine.run(DockerEngine.repoRoot(), env, timeout, command);
  }

  /** {@code up -d}, then waits until every long-running service's container is healthy. */
  void upHealthy() throws IOException {
    upHealthy(6);
  }

  /**
   * {@code up -d ARGS...} (e.g. {@code --scale}), then waits until {@code containers} long-running
   * containers run, every one healthy.
   */
  void upHealthy(int containers, String... args) throws IOException {
    List<String> up = new ArrayList<>(List.of("up", "-d"));
    up.addAll(List.of(args));
    compose(Duration.ofMinutes(10), up.toArray(String[]::new));
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              List<String> states = containers("--filter", "status=running");
              assertThat(states)
                  .as("running containers (name status)")
                  .hasSize(containers)
                  .allMatch(s -> s.contains("(healthy)"));
            });
  }

  /** {@code docker ps -a} lines ("name status") of this project's containers, with filters. */
  List<String> containers(String... filters) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "docker",
                "ps",
                "-a",
                "--filter",
                "label=com.docker.compose.project=" + project,
                "--format",
                "{{.Names}} {{.Status}}"));
    command.addAll(List.of(filters));
    DockerEngine.Result r =
        DockerEngine.run(DockerEngine.repoRoot(), Map.of(), Duration.ofSeconds(30), command);
    assertThat(r.exitCode()).as(r.output()).isZero();
    return r.output().lines().filter(l -> !l.isBlank()).toList();
  }

  /** The project's volumes by name. */
  List<String> volumes() throws IOException {
    DockerEngine.Result r =
        DockerEngine.run(
            DockerEngine.repoRoot(),
            Map.of(),
            Duration.ofSeconds(30),
            List.of(
                "docker",
                "volume",
                "ls",
                "-q",
                "--filter",
                "label=com.docker.compose.project=" + project));
    return r.output().lines().filter(l -> !l.isBlank()).toList();
  }

  /** Everything of the project removed, volumes too; for cleanup, whatever state it is in. */
  void destroy() throws IOException {
    composeMayFail(Duration.ofMinutes(5), "down", "-v", "--remove-orphans");
  }

  /** A free port whose successor is free too (the planner's range of two). */
  private static int freePortPair() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int port = freePort();
      try {
        new ServerSocket(port + 1).close();
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no two consecutive free ports found");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static String randomHex() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
