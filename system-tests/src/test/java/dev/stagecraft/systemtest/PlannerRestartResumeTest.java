package dev.stagecraft.systemtest;

import static dev.stagecraft.systemtest.TerraformBackend.lockInfo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.devstack.StackService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A planner killed with SIGKILL and started again (same {@code STAGECRAFT_INSTANCE_ID}) carries its
 * runs on (docs/runs.md "Restart", docs/adr/0029), on the real stack: a run queued behind the
 * workspace lock keeps its id and place and applies once the lock is free; a run awaiting approval
 * is approved after the restart and applies; one whose workspace state changed while the planner
 * was down ends {@code errored} saying so, having applied nothing. A run killed while applying is
 * carried on (docs/adr/0035): what its executors finished counts, what still runs is awaited, the
 * rest is applied, and no step runs twice.
 */
class PlannerRestartResumeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.dedicated("planner-restart", Map.of());
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void aRunQueuedBehindTheLockAndARunAwaitingApprovalBothApplyAfterAKillNineRestart()
      throws Exception {
    // a queued run: the workspace lock is held by a Terraform client over the HTTP backend
    String queuedWs = "resume-q-" + UUID.randomUUID().toString().substring(0, 8);
    String terraformLock = UUID.randomUUID().toString();
    HttpResponse<String> locked = backend("LOCK", queuedWs, "/lock", lockInfo(terraformLock));
    assertThat(locked.statusCode()).as(locked.body()).isEqualTo(200);
    String queued = startRun(queuedWs, "q1");
    awaitStatus(queued, "queued");

    // a run awaiting approval, holding its workspace's lock
    String approvalWs = "resume-a-" + UUID.randomUUID().toString().substring(0, 8);
    createWorkspace(approvalWs, false);
    String planned = startRun(approvalWs, "a1");
    String digest = awaitStatus(planned, "planned").get("planDigest").asText();

    // a run that ended before the restart
    String endedWs = "resume-e-" + UUID.randomUUID().toString().substring(0, 8);
    String ended = startRun(endedWs, "e1");
    awaitStatus(ended, "applied");

    stack.stack().kill(StackService.PLANNER);
    stack.stack().startAgain(StackService.PLANNER);

    // the restarted planner does not hold the ended run: a cancel leaves it as it is and answers
    // with it, from its records (docs/adr/0044; before, 404 "There is no run")
    HttpResponse<String> cancelEnded = call("POST", "/api/v1/runs/" + ended + "/cancel", Map.of());
    assertThat(cancelEnded.statusCode()).as(cancelEnded.body()).isEqualTo(202);
    JsonNode endedRun = JSON.readTree(cancelEnded.body());
    assertThat(endedRun.get("id").asText()).isEqualTo(ended);
    assertThat(endedRun.get("status").asText()).isEqualTo("applied");
    assertThat(endedRun.get("terminal").asBoolean()).isTrue();

    // both were started again under their ids; the queued one is still behind the lock
    JsonNode requeued = awaitStatus(queued, "queued");
    assertThat(requeued.get("transitions").toString()).contains("Resumed after a planner restart");
    JsonNode replanned = awaitStatus(planned, "planned");
    assertThat(replanned.get("planDigest").asText()).isEqualTo(digest);
    assertThat(replanned.get("transitions").toString()).contains("Resumed after a planner restart");
    // its log read from the start holds its entries from before the restart, then the new ones
    List<JsonNode> log = eventsFromTheStart(planned);
    assertThat(log.getFirst().get("sequence").asLong()).isEqualTo(1);
    assertThat(log.stream().map(e -> e.path("message").asText()))
        .anyMatch(m -> m.startsWith("Resumed after a planner restart"));
    assertThat(log.stream().filter(e -> e.get("sequence").asLong() < 1_000_000).count())
        .as("entries of the run's first life")
        .isPositive();

    // approving the digest shown before the restart applies it
    HttpResponse<String> approved =
        call("POST", "/api/v1/runs/" + planned + "/approve", Map.of("planDigest", digest));
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    awaitStatus(planned, "applied");

    // the lock is given back: the queued run takes it and applies
    HttpResponse<String> unlocked = backend("UNLOCK", queuedWs, "/lock", lockInfo(terraformLock));
    assertThat(unlocked.statusCode()).as(unlocked.body()).isEqualTo(200);
    awaitStatus(queued, "applied");
    assertThat(stateKey(queuedWs)).isEqualTo("q1");
    assertThat(stateKey(approvalWs)).isEqualTo("a1");
  }

  @Test
  void aRunAwaitingApprovalWhoseStateMovedWhileThePlannerWasDownEndsErrored() throws Exception {
    String ws = "resume-m-" + UUID.randomUUID().toString().substring(0, 8);
    createWorkspace(ws, false);
    String planned = startRun(ws, "m1");
    String digest = awaitStatus(planned, "planned").get("planDigest").asText();

    stack.stack().kill(StackService.PLANNER);
    // while the planner is down, a Terraform client forces the lock open and writes the state
    HttpResponse<String> forced = backend("UNLOCK", ws, "/lock", "");
    assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
    String lockId = UUID.randomUUID().toString();
    assertThat(backend("LOCK", ws, "/lock", lockInfo(lockId)).statusCode()).isEqualTo(200);
    String state =
        """
        {"version":4,"terraform_version":"1.5.7","serial":1,"lineage":"%s","outputs":{},
         "resources":[{"mode":"managed","type":"stateful_provisioning","name":"app",
          "provider":"provider[\\"registry.terraform.io/hashicorp/stateful\\"]",
          "instances":[{"schema_version":0,"attributes":{"id":"pushed","state_key":"m1"}}]}]}
        """
            .formatted(UUID.randomUUID());
    HttpResponse<String> pushed = backend("POST", ws, "/state?ID=" + lockId, state);
    assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(200);
    assertThat(backend("UNLOCK", ws, "/lock", lockInfo(lockId)).statusCode()).isEqualTo(200);
    stack.stack().startAgain(StackService.PLANNER);

    JsonNode errored = awaitStatus(planned, "errored");
    assertThat(errored.get("message").asText())
        .contains("moved since the plan that awaited approval was made")
        .contains("nothing was applied");
    HttpResponse<String> late =
        call("POST", "/api/v1/runs/" + planned + "/approve", Map.of("planDigest", digest));
    assertThat(late.statusCode()).as(late.body()).isEqualTo(409);
    // the pushed state is untouched and the workspace is free for the next run
    HttpResponse<String> after = backend("GET", ws, "/state", "");
    assertThat(after.body()).contains("\"pushed\"").contains("\"m1\"");
    String next = startRun(ws, "m2");
    awaitStatus(next, "planned");
    call("POST", "/api/v1/runs/" + next + "/discard", Map.of());
  }

  @Test
  void aRunWhoseStepFinishedWhileThePlannerWasDownIsAppliedAndTheRunQueuedBehindItAppliesAfterIt()
      throws Exception {
    String ws = "resume-x-" + UUID.randomUUID().toString().substring(0, 8);
    Path attempts = stack.shared.resolve(ws + "-attempts");
    Path started = stack.shared.resolve(ws + "-started");
    Path release = stack.shared.resolve(ws + "-release");
    String applying =
        startRunOf(
            ws,
            """
            resource "stateful_provisioning" "app" {
              state_key = "x1"
              provisioner "local-exec" {
                command = "echo attempt >> %s; touch %s; while [ ! -f %s ]; do sleep 0.1; done"
              }
            }
            """
                .formatted(attempts, started, release));
    await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(started));
    // a second run queues behind the applying run's lock
    String queued = startRun(ws, "x2");
    awaitStatus(queued, "queued");

    stack.stack().kill(StackService.PLANNER);
    // the executor finishes the step while the planner is down (its outcome is recorded)
    Files.createFile(release);
    stack.stack().startAgain(StackService.PLANNER);

    // carried on (docs/adr/0035): the step's recorded outcome counts, nothing remains to apply
    JsonNode applied = awaitStatus(applying, "applied");
    assertThat(applied.get("transitions").toString())
        .contains("Resumed after a planner restart")
        .contains("stateful_provisioning.app: succeeded");
    assertThat(applied.get("message").asText())
        .contains("Resources: 1 added, 0 changed, 0 destroyed.")
        .contains("nothing remained");
    // then the queued run takes the lock, plans against the recorded state and applies
    JsonNode next = awaitStatus(queued, "applied");
    assertThat(next.get("transitions").toString()).contains("Resumed after a planner restart");
    assertThat(stateKey(ws)).isEqualTo("x2");
    // nobody started the step again
    assertThat(Files.readAllLines(attempts)).containsExactly("attempt");
  }

  @Test
  void aChainKilledWhileItsMiddleStepRunsIsCarriedOnAndEachStepRunsExactlyOnce() throws Exception {
    Chain chain = new Chain("resume-c-");
    // back to applying, naming what had finished and what still runs; nothing else dispatched
    String run = runKilledAndCarriedOnDuringTheMiddleStep(chain);
    JsonNode resumed = get(run);
    assertThat(resumed.get("status").asText()).isEqualTo("applying");
    assertThat(resumed.get("transitions").toString())
        .contains("Resumed after a planner restart")
        .contains("stateful_provisioning.a: succeeded")
        .contains("1 were still running (stateful_provisioning.b)");
    assertThat(chain.logC).doesNotExist();

    Files.createFile(chain.release);

    JsonNode applied = awaitStatus(run, "applied");
    // the final counts cover a and b, dispatched before the kill, and c, the rest (ADR 0039)
    assertThat(applied.get("message").asText())
        .contains("Apply complete! Resources: 3 added, 0 changed, 0 destroyed.")
        .contains("Of them, 2 added, 0 changed, 0 destroyed by the actions dispatched before");
    assertThat(Files.readAllLines(chain.logA)).containsExactly("a");
    assertThat(Files.readAllLines(chain.logB)).containsExactly("b");
    assertThat(Files.readAllLines(chain.logC)).containsExactly("c");
    HttpResponse<String> state = backend("GET", chain.ws, "/state", "");
    JsonNode resources = JSON.readTree(state.body()).get("resources");
    assertThat(resources).extracting(r -> r.get("name").asText()).containsOnly("a", "b", "c");
    assertThat(resources).hasSize(3);
    assertThat(state.body()).doesNotContain("\"tainted\"");
  }

  @Test
  void anApprovedChainKilledWhileItsMiddleStepRunsAppliesTheRestOfTheApprovedPlan()
      throws Exception {
    // docs/adr/0051: the restarted planner shows that what remains is part of the approved plan
    // c's trigger is b's id: unknown when approved, known once b is applied (ADR 0051)
    Chain chain = new Chain("resume-ap-", true);
    createWorkspace(chain.ws, false);
    String run = startRunOf(chain.ws, chain.mainTf());
    String digest = awaitStatus(run, "planned").get("planDigest").asText();
    HttpResponse<String> approved =
        call("POST", "/api/v1/runs/" + run + "/approve", Map.of("planDigest", digest));
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    killAndCarryOnDuringTheMiddleStep(chain, run);

    Files.createFile(chain.release);

    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> get(run).get("terminal").asBoolean());
    JsonNode applied = get(run);
    assertThat(applied.get("status").asText()).as(applied.toString()).isEqualTo("applied");
    assertThat(applied.get("transitions").toString()).contains("Carried on, applying the rest");
    assertThat(applied.get("planDigest").asText())
        .as("the run still shows the plan that was approved, not the rest's")
        .isEqualTo(digest);
    assertThat(applied.get("message").asText())
        .contains("Apply complete! Resources: 3 added, 0 changed, 0 destroyed.");
    assertThat(Files.readAllLines(chain.logA)).containsExactly("a");
    assertThat(Files.readAllLines(chain.logB)).containsExactly("b");
    assertThat(Files.readAllLines(chain.logC)).containsExactly("c");
  }

  @Test
  void aChainWhoseMiddleStepFailsAfterThePlannerRestartEndsErroredAndRunsNothingTwice()
      throws Exception {
    Chain chain = new Chain("resume-f-");
    String run = runKilledAndCarriedOnDuringTheMiddleStep(chain);

    Files.createFile(chain.fail);
    Files.createFile(chain.release);

    JsonNode errored = awaitStatus(run, "errored");
    assertThat(errored.get("message").asText())
        .contains("Apply failed: stateful_provisioning.b")
        .contains("nothing was run twice");
    assertThat(Files.readAllLines(chain.logA)).containsExactly("a");
    assertThat(Files.readAllLines(chain.logB)).containsExactly("b");
    assertThat(chain.logC).as("what depends on the failed step never ran").doesNotExist();
    // the workspace is free again: the next run takes the lock and applies
    String next = startRun(chain.ws, "n1");
    awaitStatus(next, "applied");
  }

  @Test
  void aChainWhoseExecutorIsKilledAfterThePlannerRestartEndsErroredNamingTheInterruptedStep()
      throws Exception {
    Chain chain = new Chain("resume-k-");
    String run = runKilledAndCarriedOnDuringTheMiddleStep(chain);
    try {
      // the restarted planner hears from b's executor (a log line after the restart) ...
      Files.createFile(chain.ping);
      CompletableFuture<Boolean> heard =
          CompletableFuture.supplyAsync(
              () -> {
                try (var lines = RunLogEvents.open(stack.plannerUrl(), stack.token(), run, null)) {
                  var it = lines.iterator();
                  for (var e = RunLogEvents.next(it); e != null; e = RunLogEvents.next(it)) {
                    if (RunLogEvents.isLog(e, "alive-after-restart")) {
                      return true;
                    }
                  }
                  return false;
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThat(heard.get(60, TimeUnit.SECONDS)).isTrue();
      // ... and then the executor dies: its action is reported interrupted after the action lease
      stack.stack().kill(StackService.EXECUTOR);

      JsonNode errored = awaitStatus(run, "errored");
      assertThat(errored.get("message").asText())
          .contains("Apply failed: stateful_provisioning.b")
          .contains("interrupted")
          .contains("stopped reporting");
      assertOnlyBRanAndIsTainted(chain);
    } finally {
      releaseAndStartTheExecutorAgain(chain);
    }
  }

  @Test
  void aChainWhosePlannerAndExecutorAreKilledTogetherEndsErroredWithoutWaitingForTheDispatchLease()
      throws Exception {
    Chain chain = new Chain("resume-both-");
    String run = startRunOf(chain.ws, chain.mainTf());
    try {
      await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(chain.started));
      // one machine going down takes both: b's executor had taken its dispatch (its claim is the
      // executors' committed offset), so no executor will be given it again (docs/adr/0056)
      stack.stack().kill(StackService.EXECUTOR);
      stack.stack().kill(StackService.PLANNER);
      stack.stack().startAgain(StackService.PLANNER);

      // the dispatch lease is 10 minutes; the action lease 15 s
      JsonNode errored = awaitStatus(run, "errored");
      assertThat(errored.get("message").asText())
          .contains("Apply failed: stateful_provisioning.b")
          .contains("taken by an executor before its planner instance stopped");
      assertOnlyBRanAndIsTainted(chain);
    } finally {
      releaseAndStartTheExecutorAgain(chain);
    }
  }

  /** a and b ran once, c never; b is tainted (its step was cut). */
  private static void assertOnlyBRanAndIsTainted(Chain chain) throws Exception {
    assertThat(Files.readAllLines(chain.logA)).containsExactly("a");
    assertThat(Files.readAllLines(chain.logB)).containsExactly("b");
    assertThat(chain.logC).doesNotExist();
    HttpResponse<String> state = backend("GET", chain.ws, "/state", "");
    assertThat(state.body()).contains("\"tainted\"");
  }

  /** The killed executor's orphaned step ends; the executor is back for the other tests. */
  private static void releaseAndStartTheExecutorAgain(Chain chain) throws Exception {
    if (!Files.exists(chain.release)) {
      Files.createFile(chain.release);
    }
    try {
      stack.stack().startAgain(StackService.EXECUTOR);
    } catch (IllegalStateException stillRunning) {
      // not killed: the test failed before
    }
  }

  /**
   * Starts {@code chain}'s run, kills the planner with {@code kill -9} while b's step runs, starts
   * it again and waits until the run is carried on (its transitions say which actions were still
   * running).
   *
   * @return the run's id
   */
  private static String runKilledAndCarriedOnDuringTheMiddleStep(Chain chain) throws Exception {
    String run = startRunOf(chain.ws, chain.mainTf());
    killAndCarryOnDuringTheMiddleStep(chain, run);
    return run;
  }

  /** The kill, restart and carry-on of {@link #runKilledAndCarriedOnDuringTheMiddleStep}. */
  private static void killAndCarryOnDuringTheMiddleStep(Chain chain, String run) throws Exception {
    await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(chain.started));

    stack.stack().kill(StackService.PLANNER);
    stack.stack().startAgain(StackService.PLANNER);
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> get(run).get("transitions").toString().contains("were still running"));
  }

  /**
   * Three resources a → b → c whose local-exec steps append a line to a file each; b's step blocks
   * until {@link #release} exists and then fails when {@link #fail} exists; it prints {@code
   * alive-after-restart} once {@link #ping} exists.
   */
  private static final class Chain {
    final String ws;
    final Path logA;
    final Path logB;
    final Path logC;
    final Path started;
    final Path release;
    final Path fail;
    final Path ping;

    /** Whether c's trigger references b's id (else only {@code depends_on}). */
    final boolean references;

    Chain(String prefix) {
      this(prefix, false);
    }

    Chain(String prefix, boolean references) {
      this.references = references;
      ws = prefix + UUID.randomUUID().toString().substring(0, 8);
      logA = stack.shared.resolve(ws + "-a");
      logB = stack.shared.resolve(ws + "-b");
      logC = stack.shared.resolve(ws + "-c");
      started = stack.shared.resolve(ws + "-b-started");
      release = stack.shared.resolve(ws + "-b-release");
      fail = stack.shared.resolve(ws + "-b-fail");
      ping = stack.shared.resolve(ws + "-b-ping");
    }

    String mainTf() {
      return """
          resource "stateful_provisioning" "a" {
            state_key = "c1"
            provisioner "local-exec" {
              command = "echo a >> %s"
            }
          }
          resource "stateful_provisioning" "b" {
            state_key  = "c1"
            depends_on = [stateful_provisioning.a]
            provisioner "local-exec" {
              command = "echo b >> %s; touch %s; while [ ! -f %s ]; do if [ -f %s ] && [ ! -f %s.seen ]; then touch %s.seen; echo alive-after-restart; fi; sleep 0.1; done; if [ -f %s ]; then exit 1; fi"
            }
          }
          resource "stateful_provisioning" "c" {
            state_key  = "c1"
            depends_on = [stateful_provisioning.b]
            %s
            provisioner "local-exec" {
              command = "echo c >> %s"
            }
          }
          """
          .formatted(
              logA,
              logB,
              started,
              release,
              ping,
              ping,
              ping,
              fail,
              references ? "triggers = { b = stateful_provisioning.b.id }" : "",
              logC);
    }
  }

  private static HttpResponse<String> backend(String method, String ws, String path, String body)
      throws Exception {
    return TerraformBackend.call(stack, method, ws, path, body);
  }

  private static String stateKey(String ws) throws Exception {
    return stateAttribute(ws, "state_key");
  }

  private static String stateAttribute(String ws, String name) throws Exception {
    HttpResponse<String> r = backend("GET", ws, "/state", "");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).at("/resources/0/instances/0/attributes/" + name).asText();
  }

  private static void createWorkspace(String ws, boolean autoApply) throws Exception {
    HttpResponse<String> r =
        call("POST", "/api/v1/workspaces", Map.of("name", ws, "autoApply", autoApply));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
  }

  /** Starts a run deploying revision {@code key} (a variable, so its value must be resumed). */
  private static String startRun(String ws, String key) throws Exception {
    return startRun(
        ws,
        Map.of("revision", key),
        "variable \"revision\" {}\n"
            + "resource \"stateful_provisioning\" \"app\" {\n"
            + "  state_key = var.revision\n"
            + "  provisioner \"local-exec\" {\n"
            + "    command = \"echo deploying ${var.revision}\"\n"
            + "  }\n"
            + "}\n");
  }

  private static String startRunOf(String ws, String mainTf) throws Exception {
    return startRun(ws, Map.of(), mainTf);
  }

  private static String startRun(String ws, Map<String, String> variables, String mainTf)
      throws Exception {
    HttpResponse<String> r =
        call(
            "POST",
            "/api/v1/runs",
            Map.of("workspace", ws, "variables", variables, "files", Map.of("main.tf", mainTf)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("id").asText();
  }

  private static JsonNode awaitStatus(String run, String status) {
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> get(run).get("status").asText(), status::equals);
    try {
      return get(run);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The run's log from sequence 1 through the newest entry, page by page, as a client reads. */
  private static List<JsonNode> eventsFromTheStart(String run) throws Exception {
    List<JsonNode> all = new ArrayList<>();
    long after = 0;
    while (true) {
      HttpResponse<String> r =
          call("GET", "/api/v1/runs/" + run + "/events?after=" + after + "&wait=0", null);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode events = JSON.readTree(r.body()).get("events");
      if (events.isEmpty()) {
        return all;
      }
      events.forEach(all::add);
      after = all.getLast().get("sequence").asLong();
    }
  }

  private static JsonNode get(String run) throws Exception {
    return JSON.readTree(call("GET", "/api/v1/runs/" + run, null).body());
  }

  private static HttpResponse<String> call(String method, String path, Object body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .header("Authorization", "Bearer " + stack.token())
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
