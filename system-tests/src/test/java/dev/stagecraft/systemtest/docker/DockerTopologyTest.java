package dev.stagecraft.systemtest.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

/**
 * The images operators run, started with Testcontainers as one topology shared by the cases ({@link
 * DockerTopology}: Kafka, PostgreSQL, the four services, two executors and an OpenSSH target on one
 * Docker network), driven through the packaged CLI from the host: the seed example's create, no-op,
 * replace and destroy; a remote-exec deploy to the sshd container with its host key pinned; a
 * {@code docker restart} of PostgreSQL mid-run; a {@code docker kill} of the executor running a
 * step (last: it leaves one executor). Steps are counted by the commands' own journals in a host
 * directory the executors mount; a step that must stay running waits there for a file the test
 * creates (the step polls; the test waits on the journal, never on time). Skipped, with one line
 * saying why, only when no engine answers.
 */
@TestMethodOrder(OrderAnnotation.class)
class DockerTopologyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** On a failure, the journals and the end of every container's log, to see why. */
  @RegisterExtension
  static final TestWatcher DIAGNOSE =
      new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
          if (topology != null) {
            System.out.println(topology.diagnostics(journal));
          }
        }
      };

  static Path tmp;
  static Path journal;
  static DockerTopology topology;
  static String token;
  static String clientKey;

  @BeforeAll
  static void start() throws Exception {
    DockerEngine.assumeEngine();
    DockerEngine.buildImages();
    Path target = DockerEngine.repoRoot().resolve("system-tests/target");
    tmp = Files.createDirectories(target.resolve("docker-topology-" + UUID.randomUUID()));
    // the sandboxes' uids write here: world-writable, as the journal of the dev stack's tests
    journal = Files.createDirectories(tmp.resolve("journal"));
    Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path key = tmp.resolve("client_key");
    DockerEngine.Result keygen =
        DockerEngine.run(
            tmp,
            Map.of(),
            Duration.ofSeconds(30),
            List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString()));
    assertThat(keygen.exitCode()).as(keygen.output()).isZero();
    clientKey = Files.readString(key);
    topology =
        new DockerTopology(journal.toString(), Files.readString(tmp.resolve("client_key.pub")));
    topology.start();
    token = tenantToken("docker");
  }

  @AfterAll
  static void stop() throws IOException {
    if (topology != null) {
      topology.close();
    }
    if (tmp != null) {
      DockerEngine.run(
          tmp.getParent(), Map.of(), Duration.ofSeconds(30), List.of("rm", "-rf", tmp.toString()));
    }
  }

  @Test
  @Order(1)
  void theSeedExampleIsCreatedLeftAloneReplacedAndDestroyed() throws Exception {
    Path log = journal.resolve("seed.log");
    Path dir =
        config(
            "seed",
            """
            variable "revision_to_deploy" {
            }

            resource "stateful_provisioning" "app" {
              state_key = "${var.revision_to_deploy}"
              provisioner "local-exec" {
                command = "echo \\"deploying revision ${var.revision_to_deploy}\\" >> /journal/seed.log"
              }
            }

            resource "stateful_provisioning" "smoke_test" {
              state_key = stateful_provisioning.app.id
              provisioner "local-exec" {
                command = "echo \\"smoke testing revision ${var.revision_to_deploy}\\" >> /journal/seed.log"
              }
            }
            """);
    String ws = "-workspace=seed";

    Cli create = cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r1");
    assertThat(create.exitCode()).as(create.output()).isZero();
    assertThat(Files.readAllLines(log))
        .containsExactly("deploying revision r1", "smoke testing revision r1");
    long created = serial(dir, ws);
    assertThat(created).isPositive();

    Cli noop = cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r1");
    assertThat(noop.exitCode()).as(noop.output()).isZero();
    assertThat(Files.readAllLines(log)).as("a no-op runs no step").hasSize(2);
    assertThat(serial(dir, ws)).as("a no-op writes no state").isEqualTo(created);

    Cli replace = cli(dir, "apply", ws, "-auto-approve", "-var", "revision_to_deploy=r2");
    assertThat(replace.exitCode()).as(replace.output()).isZero();
    assertThat(Files.readAllLines(log))
        .containsExactly(
            "deploying revision r1",
            "smoke testing revision r1",
            "deploying revision r2",
            "smoke testing revision r2");
    long replaced = serial(dir, ws);
    assertThat(replaced).isGreaterThan(created);

    Cli destroy = cli(dir, "destroy", ws, "-auto-approve", "-var", "revision_to_deploy=r2");
    assertThat(destroy.exitCode()).as(destroy.output()).isZero();
    assertThat(Files.readAllLines(log)).as("destroying runs no provisioner").hasSize(4);
    JsonNode destroyed = statePull(dir, ws);
    assertThat(destroyed.get("serial").asLong()).isGreaterThan(replaced);
    assertThat(destroyed.get("resources")).isEmpty();

    assertThat(runStatuses("seed"))
        .as("the seed workspace's runs, newest first")
        .isNotEmpty()
        .allMatch(s -> s.equals("applied") || s.equals("planned_and_finished"))
        .hasSize(4);
  }

  @Test
  @Order(2)
  void aRemoteExecDeployReachesTheSshdContainerWithItsHostKeyPinned() throws Exception {
    GenericContainer<?> sshd = topology.sshd;
    ExecResult hostKey = sshd.execInContainer("cat", "/etc/ssh/ssh_host_ed25519_key.pub");
    String[] fields = hostKey.getStdout().trim().split(" ");
    String publicKey = fields[0] + " " + fields[1];
    Path dir =
        config(
            "remote",
            """
            variable "revision" {
            }

            resource "stateful_provisioning" "deploy" {
              state_key = var.revision
              connection {
                type        = "ssh"
                host        = "target"
                port        = 22
                user        = "root"
                private_key = file("client_key")
                timeout     = "30s"
              }
              provisioner "remote-exec" {
                inline = ["mkdir -p /srv/app", "echo \\"release ${var.revision}\\" > /srv/app/release"]
              }
            }
            """);
    Files.writeString(dir.resolve("client_key"), clientKey);
    Cli pinned = cli(dir, "known-hosts", "add", "target:22", publicKey);
    assertThat(pinned.exitCode()).as(pinned.output()).isZero();

    Cli apply = cli(dir, "apply", "-workspace=remote", "-auto-approve", "-var", "revision=r7");
    assertThat(apply.exitCode()).as(apply.output()).isZero();
    ExecResult release = sshd.execInContainer("cat", "/srv/app/release");
    assertThat(release.getStdout()).isEqualTo("release r7\n");
    assertThat(cli(dir, "known-hosts", "list", "-workspace=remote").output())
        .contains("target:22", "tenant known hosts")
        .doesNotContain("first use");
  }

  @Test
  @Order(3)
  void aPostgresRestartMidRunEndsTheRunClearlyAndRunsNoStepTwice() throws Exception {
    Path log = journal.resolve("pg.log");
    Path dir =
        config(
            "pg",
            """
            resource "stateful_provisioning" "first" {
              state_key = "v1"
              provisioner "local-exec" {
                command = "echo first >> /journal/pg.log; while [ ! -e /journal/pg-open ]; do sleep 0.1; done; echo released >> /journal/pg.log"
              }
            }
            resource "stateful_provisioning" "second" {
              state_key = stateful_provisioning.first.id
              provisioner "local-exec" {
                command = "echo second >> /journal/pg.log"
              }
            }
            """);
    CompletableFuture<Cli> apply =
        CompletableFuture.supplyAsync(
            () -> cliUnchecked(dir, "apply", "-workspace=pg", "-auto-approve"));
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> Files.exists(log) && Files.readAllLines(log).size() == 1);

    DockerClientFactory.instance()
        .client()
        .restartContainerCmd(topology.postgres.getContainerId())
        .withTimeout(10)
        .exec();
    Files.writeString(journal.resolve("pg-open"), "");

    Cli result = apply.get(4, TimeUnit.MINUTES);
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).as("no step ran twice").doesNotHaveDuplicates();
    if (result.exitCode() == 0) {
      assertThat(lines).containsExactly("first", "released", "second");
      assertThat(runStatuses("pg")).containsExactly("applied");
    } else {
      assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
      assertThat(runStatuses("pg")).containsExactly("errored");
    }
  }

  @Test
  @Order(4)
  void aKilledExecutorsStepEndsInterruptedAndTaintedAndTheOtherExecutorTakesTheNextRun()
      throws Exception {
    Path log = journal.resolve("kill.log");
    Path dir =
        config(
            "kill",
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              provisioner "local-exec" {
                command = "echo ran >> /journal/kill.log; while [ ! -e /journal/kill-open ]; do sleep 0.1; done"
              }
            }
            """);
    String ws = "-workspace=kill";
    CompletableFuture<Cli> apply =
        CompletableFuture.supplyAsync(() -> cliUnchecked(dir, "apply", ws, "-auto-approve"));
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> Files.exists(log) && Files.readAllLines(log).size() == 1);
    String victim = executorRunningTheWaitLoop();
    String survivor =
        victim.equals(DockerTopology.EXECUTOR_A)
            ? DockerTopology.EXECUTOR_B
            : DockerTopology.EXECUTOR_A;
    DockerClientFactory.instance()
        .client()
        .killContainerCmd(topology.executors.get(victim).getContainerId())
        .exec();

    Cli failed = apply.get(3, TimeUnit.MINUTES);
    assertThat(failed.exitCode()).as(failed.output()).isEqualTo(1);
    assertThat(failed.output())
        .contains("was interrupted: executor " + victim + " stopped reporting")
        .contains("it was not run again");
    assertThat(statePull(dir, ws).at("/resources/0/instances/0/status").asText())
        .isEqualTo("tainted");
    assertThat(runStatuses("kill")).containsExactly("errored");

    Files.writeString(journal.resolve("kill-open"), "");
    Cli next = cli(dir, "apply", ws, "-auto-approve");
    assertThat(next.exitCode()).as(next.output()).isZero();
    assertThat(Files.readAllLines(log)).as("the cut step once, its replacement once").hasSize(2);
    assertThat(statePull(dir, ws).at("/resources/0/instances/0/status").asText())
        .isNotEqualTo("tainted");
    assertThat(runStatuses("kill")).containsExactly("applied", "errored");
    assertThat(topology.executors.get(survivor).isRunning()).isTrue();
    assertThat(topology.executors.get(victim).isRunning()).isFalse();
  }

  /**
   * The executor running the only step in flight: the one whose container runs that step's wait
   * loop (its {@code sleep}; a sandbox of an ended action may linger in the other).
   */
  private static String executorRunningTheWaitLoop() {
    List<String> running = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              running.clear();
              for (Map.Entry<String, GenericContainer<?>> e : topology.executors.entrySet()) {
                // the pattern does not match its own command line
                ExecResult r =
                    e.getValue()
                        .execInContainer(
                            "sh",
                            "-c",
                            "grep -l 'sle[e]p' /proc/[0-9]*/cmdline 2>/dev/null || true");
                if (!r.getStdout().isBlank()) {
                  running.add(e.getKey());
                }
              }
              return running.size() == 1;
            });
    return running.get(0);
  }

  private static Path config(String name, String mainTf) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("configs").resolve(name));
    Files.writeString(dir.resolve("main.tf"), mainTf);
    return dir;
  }

  private static long serial(Path dir, String ws) throws IOException {
    return statePull(dir, ws).get("serial").asLong();
  }

  private static JsonNode statePull(Path dir, String ws) throws IOException {
    Cli pull = cli(dir, "state", "pull", ws);
    assertThat(pull.exitCode()).as(pull.output()).isZero();
    return JSON.readTree(pull.output());
  }

  /** The statuses of a workspace's runs, newest first, from the planner's API. */
  private static List<String> runStatuses(String workspace) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create(topology.plannerUrl() + "/api/v1/runs?workspace=" + workspace))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> statuses = new ArrayList<>();
    JSON.readTree(r.body()).forEach(run -> statuses.add(run.get("status").asText()));
    return statuses;
  }

  record Cli(int exitCode, String output) {}

  private static Cli cliUnchecked(Path dir, String... args) {
    try {
      return cli(dir, args);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code stagecraft -chdir=DIR ARGS...}: the packaged CLI, pointed at the planner container. */
  private static Cli cli(Path dir, String... args) throws IOException {
    DockerEngine.Result r =
        DockerEngine.cli(topology.plannerUrl(), token, tmp.resolve("home"), dir, args);
    return new Cli(r.exitCode(), r.output());
  }

  /** A new tenant and an admin token of it, from the operator token (docs/operations.md). */
  private static String tenantToken(String tenant) throws Exception {
    String operator = topology.secrets.get("STAGECRAFT_OPERATOR_TOKEN");
    HttpResponse<String> created =
        HTTP.send(
            post("/internal/v1/tenants", operator, "{\"name\":\"" + tenant + "\"}"),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    HttpResponse<String> issued =
        HTTP.send(
            post("/internal/v1/tenants/" + tenant + "/tokens", operator, "{\"role\":\"admin\"}"),
            HttpResponse.BodyHandlers.ofString());
    assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
    return JSON.readTree(issued.body()).get("token").asText();
  }

  private static HttpRequest post(String path, String bearer, String body) {
    return HttpRequest.newBuilder(URI.create(topology.stateUrl() + path))
        .header("Authorization", "Bearer " + bearer)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(30))
        .build();
  }
}
