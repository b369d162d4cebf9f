package dev.stagecraft.systemtest.docker;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

/**
 * The platform's topology started from the images {@code dev/images} builds, with Testcontainers,
 * on one Docker network of its own: Kafka (KRaft, one node), PostgreSQL (one database the four
 * services share, as in docker-compose.yml), the lock, state and planner services, two executors
 * ({@code executor-a}, {@code executor-b}) and an OpenSSH target ({@code target}). The executors
 * mount the host directory {@code journal} at {@code /journal}, shared into their local-exec
 * sandboxes, where the tests' commands keep their journals and gates.
 *
 * <p>Kafka is plaintext here, without the SASL principals and ACLs of docker-compose.yml (the
 * compose smoke test runs those); the services then create the topics themselves. Testcontainers'
 * reaper is off (its image cannot be pulled): {@link #close()} removes every container and the
 * network, whatever state they are in. Not thread-safe: one test class drives it.
 */
final class DockerTopology implements AutoCloseable {
  static final String EXECUTOR_A = "executor-a";
  static final String EXECUTOR_B = "executor-b";

  final Network network = Network.newNetwork();
  final Map<String, String> secrets = new HashMap<>();
  final GenericContainer<?> kafka;
  final GenericContainer<?> postgres;
  final GenericContainer<?> sshd;
  final GenericContainer<?> lock;
  final GenericContainer<?> state;
  final GenericContainer<?> planner;
  final Map<String, GenericContainer<?>> executors = new HashMap<>();
  private final List<GenericContainer<?>> all = new ArrayList<>();
  private final String journal;

  /**
   * The containers, not started; {@code journal} is the host directory the executors share with the
   * test and {@code authorizedKey} the public key the OpenSSH target accepts for root.
   */
  DockerTopology(String journal, String authorizedKey) {
    this.journal = journal;
    for (String v :
        List.of("SERVICE_TOKEN_PLANNER", "SERVICE_TOKEN_STATE", "OPERATOR_TOKEN", "DB_PASSWORD")) {
      secrets.put("STAGECRAFT_" + v, randomHex());
    }
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    secrets.put("STAGECRAFT_SECRETS_KEYS", "k1:" + Base64.getEncoder().encodeToString(key));

    kafka =
        container("kafka", "kafka")
            .withCreateContainerCmdModifier(
                c -> c.withEntrypoint("/bin/bash", "-c").withCmd(KAFKA_START))
            .waitingFor(
                Wait.forLogMessage(".*Kafka Server started.*", 1)
                    .withStartupTimeout(Duration.ofMinutes(3)));
    postgres =
        container("postgres", "postgres")
            .withEnv("POSTGRES_DB", "stagecraft")
            .withEnv("POSTGRES_USER", "stagecraft")
            .withEnv("POSTGRES_PASSWORD", secrets.get("STAGECRAFT_DB_PASSWORD"))
            .waitingFor(
                Wait.forLogMessage(".*database system is ready to accept connections.*", 1)
                    .withStartupTimeout(Duration.ofMinutes(2)));
    sshd =
        container("sshd", "target")
            .withEnv("STAGECRAFT_AUTHORIZED_KEY", authorizedKey)
            .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(1)));
    sshd.addExposedPort(22);
    lock =
        service("lock-service", "lock-service", "lock-1")
            .withEnv(db())
            .withEnv(tokens("STAGECRAFT_SERVICE_TOKEN_PLANNER", "STAGECRAFT_SERVICE_TOKEN_STATE"));
    state =
        service("state-service", "state-service", "state-1")
            .withEnv(db())
            .withEnv("STAGECRAFT_LOCK_URL", "http://lock-service:8080")
            .withEnv(
                tokens(
                    "STAGECRAFT_SERVICE_TOKEN_STATE",
                    "STAGECRAFT_SERVICE_TOKEN_PLANNER",
                    "STAGECRAFT_OPERATOR_TOKEN"));
    planner =
        service("planner-service", "planner-service", "planner-1")
            .withEnv(db())
            .withEnv(tokens("STAGECRAFT_SERVICE_TOKEN_PLANNER", "STAGECRAFT_SECRETS_KEYS"))
            .withEnv("STAGECRAFT_SECRETS_REQUIRED", "true")
            .withEnv("STAGECRAFT_PLANNER_ADVERTISED_URL", "http://planner-service:8080")
            .withEnv("STAGECRAFT_STATE_URL", "http://state-service:8080")
            .withEnv("STAGECRAFT_LOCK_URL", "http://lock-service:8080")
            // an executor that stops reporting is given up on within seconds (case c)
            .withEnv("STAGECRAFT_PLANNER_ACTION_LEASE", "8s")
            // rides out a PostgreSQL restart instead of halting (docs/operations.md; case d)
            .withEnv("STAGECRAFT_PLANNER_INSTANCE_LEASE", "120s");
    for (String id : List.of(EXECUTOR_A, EXECUTOR_B)) {
      executors.put(id, executor(id));
    }
  }

  private static final String KAFKA_START =
      """
      set -euo pipefail
      cat > /tmp/server.properties <<EOF
      process.roles=broker,controller
      node.id=1
      controller.quorum.voters=1@kafka:9093
      listeners=PLAINTEXT://:9092,CONTROLLER://:9093
      advertised.listeners=PLAINTEXT://kafka:9092
      listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
      controller.listener.names=CONTROLLER
      inter.broker.listener.name=PLAINTEXT
      log.dirs=/var/lib/kafka/data
      offsets.topic.replication.factor=1
      transaction.state.log.replication.factor=1
      transaction.state.log.min.isr=1
      share.coordinator.state.topic.replication.factor=1
      share.coordinator.state.topic.min.isr=1
      num.partitions=4
      auto.create.topics.enable=false
      group.initial.rebalance.delay.ms=0
      EOF
      /opt/kafka/bin/kafka-storage.sh format --ignore-formatted \
        --cluster-id 4L6g3nShT-eMCtK--X86sw --config /tmp/server.properties
      exec /opt/kafka/bin/kafka-server-start.sh /tmp/server.properties
      """;

  /** Starts everything, in the order the services need each other; fails if one is not ready. */
  void start() {
    Startables.deepStart(kafka, postgres, sshd).join();
    Startables.deepStart(lock, state).join();
    planner
        .withEnv("STAGECRAFT_PUBLIC_STATE_URL", stateUrl())
        .withEnv("STAGECRAFT_PUBLIC_LOCK_URL", stateUrl());
    Startables.deepStart(planner, executors.get(EXECUTOR_A), executors.get(EXECUTOR_B)).join();
  }

  String plannerUrl() {
    return "http://" + planner.getHost() + ":" + planner.getMappedPort(8080);
  }

  String stateUrl() {
    return "http://" + state.getHost() + ":" + state.getMappedPort(8080);
  }

  private GenericContainer<?> container(String image, String alias) {
    GenericContainer<?> c =
        new GenericContainer<>(DockerImageName.parse("stagecraft/" + image + ":local"))
            .withNetwork(network)
            .withNetworkAliases(alias);
    all.add(c);
    return c;
  }

  private GenericContainer<?> service(String image, String alias, String instanceId) {
    GenericContainer<?> c =
        container(image, alias)
            .withEnv("STAGECRAFT_PORT", "8080")
            .withEnv("STAGECRAFT_KAFKA", "kafka:9092")
            .withEnv("STAGECRAFT_INSTANCE_ID", instanceId)
            .withExposedPorts(8080)
            .waitingFor(
                Wait.forHttp("/health")
                    .forPort(8080)
                    .forStatusCode(200)
                    .withStartupTimeout(Duration.ofMinutes(3)));
    return c;
  }

  /** An executor as docker-compose.yml runs it (sandbox rights), with the journal mounted. */
  private GenericContainer<?> executor(String id) {
    Consumer<CreateContainerCmd> sandboxRights =
        c ->
            c.getHostConfig()
                .withCapAdd(Capability.SYS_ADMIN)
                .withSecurityOpts(List.of("seccomp=unconfined", "apparmor=unconfined"))
                .withBinds(
                    Bind.parse("/sys/fs/cgroup:/sys/fs/cgroup:rw"),
                    Bind.parse(journal + ":/journal:rw"));
    return service("executor-service", id, id)
        .withEnv(tokens("STAGECRAFT_SECRETS_KEYS"))
        .withEnv("STAGECRAFT_SECRETS_REQUIRED", "true")
        .withEnv("STAGECRAFT_EXECUTOR_CONCURRENCY", "16")
        .withEnv("STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS", "/journal")
        .withEnv("STAGECRAFT_EXECUTOR_HEARTBEAT_INTERVAL", "1s")
        .withEnv("STAGECRAFT_EXECUTOR_SESSION_TIMEOUT", "6s")
        .withCreateContainerCmdModifier(sandboxRights);
  }

  private Map<String, String> db() {
    return Map.of(
        "STAGECRAFT_DB_URL", "jdbc:postgresql://postgres:5432/stagecraft",
        "STAGECRAFT_DB_USER", "stagecraft",
        "STAGECRAFT_DB_PASSWORD", secrets.get("STAGECRAFT_DB_PASSWORD"));
  }

  private Map<String, String> tokens(String... names) {
    Map<String, String> env = new HashMap<>();
    for (String n : names) {
      env.put(n, secrets.get(n));
    }
    return env;
  }

  /** The files of {@code journal} and the last lines of every container's log. */
  String diagnostics(Path journal) {
    StringBuilder out = new StringBuilder();
    try (Stream<Path> files = Files.list(journal)) {
      for (Path f : files.sorted().toList()) {
        out.append("== journal ").append(f.getFileName());
        if (Files.isRegularFile(f)) {
          out.append(":\n").append(Files.readString(f));
        }
        out.append('\n');
      }
    } catch (IOException e) {
      out.append("journal unreadable: ").append(e).append('\n');
    }
    for (GenericContainer<?> c : all) {
      if (c.getContainerId() == null) {
        continue;
      }
      List<String> lines = c.getLogs().lines().toList();
      out.append("== ").append(c.getNetworkAliases()).append(" running=").append(c.isRunning());
      out.append('\n');
      lines
          .subList(Math.max(0, lines.size() - 40), lines.size())
          .forEach(l -> out.append(l).append('\n'));
    }
    return out.toString();
  }

  /** Every container stopped and removed (its anonymous volumes too), then the network. */
  @Override
  public void close() {
    for (GenericContainer<?> c : all.reversed()) {
      c.stop();
    }
    network.close();
  }

  private static String randomHex() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
