package dev.stagecraft.systemtest;

import static dev.stagecraft.systemtest.TerraformBackend.lockInfo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.devstack.DevStack;
import dev.stagecraft.devstack.StackService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Another planner instance adopts a dead instance's runs (docs/adr/0034), on the real stack: the
 * stack's planner (A, instance {@code dev-planner}) and a second planner process (B, {@code
 * dev-planner-b}) share PostgreSQL, Kafka and the services, with a 3 s instance lease. A run on A
 * waits behind the workspace lock (a Terraform client holds it); A is killed with SIGKILL and not
 * started again; the Terraform client releases the lock. B adopts the run once A's lease expired,
 * resumes it under its id, and it applies — its provisioner ran exactly once — with transitions
 * saying it was adopted. A third planner (C), paused with SIGSTOP rather than killed, has its run
 * adopted the same way and halts by itself when it wakes up (self-fencing).
 */
class PlannerAdoptionTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Map<String, String> SHORT_LEASE =
      Map.of(
          "STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT", "500ms",
          "STAGECRAFT_PLANNER_INSTANCE_LEASE", "3s");
  static SharedStack stack;
  static PlannerProcess plannerB;
  static String plannerBUrl;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.dedicated("planner-adoption", SHORT_LEASE);
    plannerB = PlannerProcess.start(stack, "dev-planner-b", SHORT_LEASE);
    plannerBUrl = plannerB.url();
  }

  @AfterAll
  static void stop() throws Exception {
    if (plannerB != null) {
      plannerB.close();
    }
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void aQueuedRunOfAKilledPlannerIsAdoptedByTheOtherPlannerAndAppliesOnce() throws Exception {
    String ws = "adopt-" + UUID.randomUUID().toString().substring(0, 8);
    Path attempts = stack.shared.resolve(ws + "-attempts");
    String terraformLock = UUID.randomUUID().toString();
    HttpResponse<String> locked = backend("LOCK", ws, "/lock", lockInfo(terraformLock));
    assertThat(locked.statusCode()).as(locked.body()).isEqualTo(200);

    // a run on A (the stack's planner), queued behind the Terraform client's lock
    String run = startRunOnA(ws, "r1", attempts);
    awaitStatus(stack.plannerUrl(), run, "queued");
    assertThat(get(plannerBUrl, run).get("transitions").toString())
        .as("B does not take the run of a live A")
        .doesNotContain("adopted");

    stack.stack().kill(StackService.PLANNER);
    HttpResponse<String> unlocked = backend("UNLOCK", ws, "/lock", lockInfo(terraformLock));
    assertThat(unlocked.statusCode()).as(unlocked.body()).isEqualTo(200);

    // B adopts it once A's lease (3 s) ran out, resumes it under its id, and it applies
    JsonNode applied = awaitStatus(plannerBUrl, run, "applied");
    assertThat(applied.get("transitions").toString())
        .contains("Resumed after adoption")
        .contains(
            "adopted by planner instance dev-planner-b after instance dev-planner stopped"
                + " renewing its lease")
        .doesNotContain("restarted");
    assertThat(stateKey(ws)).isEqualTo("r1");
    assertThat(Files.readAllLines(attempts)).as("the provisioner ran once").containsExactly("r1");
    // its log (journal) says so too, served by B from the records
    HttpResponse<String> events = call("GET", plannerBUrl, "/api/v1/runs/" + run + "/events");
    assertThat(events.statusCode()).as(events.body()).isEqualTo(200);
    assertThat(events.body()).contains("adopted by planner instance dev-planner-b");
  }

  @Test
  void aPausedPlannerWhoseRunWasAdoptedHaltsWhenItWakesUpAndTheRunAppliesOnceOnTheAdopter()
      throws Exception {
    // planner C, paused with SIGSTOP (not dead): B adopts its queued run; woken with SIGCONT, C
    // finds its lease gone and halts (exit status 75) before the lock is even free
    try (PlannerProcess c = PlannerProcess.start(stack, "dev-planner-c", SHORT_LEASE)) {
      Process plannerC = c.process();
      String plannerCUrl = c.url();
      String ws = "adopt-paused-" + UUID.randomUUID().toString().substring(0, 8);
      Path attempts = stack.shared.resolve(ws + "-attempts");
      String terraformLock = UUID.randomUUID().toString();
      assertThat(backend("LOCK", ws, "/lock", lockInfo(terraformLock)).statusCode()).isEqualTo(200);
      String run = startRun(plannerCUrl, ws, "p1", attempts);
      awaitStatus(plannerCUrl, run, "queued");

      signal("STOP", plannerC.pid());
      await()
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .until(
              () -> get(plannerBUrl, run).get("transitions").toString(),
              t ->
                  t.contains(
                      "adopted by planner instance dev-planner-b after instance"
                          + " dev-planner-c stopped renewing its lease"));
      signal("CONT", plannerC.pid());
      assertThat(plannerC.waitFor(120, TimeUnit.SECONDS)).as("C halts").isTrue();
      assertThat(plannerC.exitValue()).isEqualTo(75);
      assertThat(Files.readString(c.log()))
          .contains("planner instance dev-planner-c")
          .contains("exit status 75");

      assertThat(backend("UNLOCK", ws, "/lock", lockInfo(terraformLock)).statusCode())
          .isEqualTo(200);
      JsonNode applied = awaitStatus(plannerBUrl, run, "applied");
      assertThat(applied.get("transitions").toString()).contains("Resumed after adoption");
      assertThat(stateKey(ws)).isEqualTo("p1");
      assertThat(Files.readAllLines(attempts)).as("the provisioner ran once").containsExactly("p1");
    }
  }

  @Test
  void theStacksPlannerFencedAfterAPauseIsStartedAgainByTheDevStack() throws Exception {
    // the dev stack supervises like a process manager: a planner that fenced itself (exit status
    // 75: its instance lease was lost and its runs adopted) is started again, on the same port
    DevStack dev = stack.stack();
    if (dev.pid(StackService.PLANNER).isEmpty()) {
      dev.startAgain(StackService.PLANNER); // killed by another test of this class
    }
    long paused = dev.pid(StackService.PLANNER).orElseThrow();
    String ws = "adopt-restarted-" + UUID.randomUUID().toString().substring(0, 8);
    Path attempts = stack.shared.resolve(ws + "-attempts");
    String terraformLock = UUID.randomUUID().toString();
    assertThat(backend("LOCK", ws, "/lock", lockInfo(terraformLock)).statusCode()).isEqualTo(200);
    String run = startRunOnA(ws, "s1", attempts);
    awaitStatus(stack.plannerUrl(), run, "queued");

    signal("STOP", paused);
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .ignoreExceptions()
          .until(
              () -> get(plannerBUrl, run).get("transitions").toString(),
              t -> t.contains("adopted by planner instance dev-planner-b"));
    } finally {
      signal("CONT", paused);
    }
    // it halts on waking (its lease is gone) and the stack starts a new process that serves again
    await()
        .atMost(Duration.ofSeconds(180))
        .ignoreExceptions()
        .until(
            () ->
                dev.pid(StackService.PLANNER).orElse(paused) != paused
                    && call("GET", stack.plannerUrl(), "/health").statusCode() == 200);
    assertThat(ProcessHandle.of(paused).map(ProcessHandle::isAlive).orElse(false))
        .as("the paused process ended")
        .isFalse();
    // the run stays with the adopter: the new process (same instance id) does not take it back
    assertThat(backend("UNLOCK", ws, "/lock", lockInfo(terraformLock)).statusCode()).isEqualTo(200);
    JsonNode applied = awaitStatus(plannerBUrl, run, "applied");
    assertThat(applied.get("transitions").toString()).contains("Resumed after adoption");
    assertThat(Files.readAllLines(attempts)).as("the provisioner ran once").containsExactly("s1");
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -" + signal + " " + pid).isZero();
  }

  private String startRunOnA(String ws, String key, Path attempts) throws Exception {
    return startRun(stack.plannerUrl(), ws, key, attempts);
  }

  private String startRun(String planner, String ws, String key, Path attempts) throws Exception {
    String mainTf =
        "variable \"revision\" {}\n"
            + "resource \"stateful_provisioning\" \"app\" {\n"
            + "  state_key = var.revision\n"
            + "  provisioner \"local-exec\" {\n"
            + "    command = \"echo ${var.revision} >> "
            + attempts
            + "\"\n"
            + "  }\n"
            + "}\n";
    HttpResponse<String> r =
        call(
            "POST",
            planner,
            "/api/v1/runs",
            Map.of(
                "workspace",
                ws,
                "variables",
                Map.of("revision", key),
                "files",
                Map.of("main.tf", mainTf)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("id").asText();
  }

  private static HttpResponse<String> backend(String method, String ws, String path, String body)
      throws Exception {
    return TerraformBackend.call(stack, method, ws, path, body);
  }

  private static String stateKey(String ws) throws Exception {
    HttpResponse<String> r = backend("GET", ws, "/state", "");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).at("/resources/0/instances/0/attributes/state_key").asText();
  }

  private static JsonNode awaitStatus(String planner, String run, String status) {
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> get(planner, run).get("status").asText(), status::equals);
    try {
      return get(planner, run);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode get(String planner, String run) throws Exception {
    return JSON.readTree(call("GET", planner, "/api/v1/runs/" + run, null).body());
  }

  private static HttpResponse<String> call(String method, String planner, String path)
      throws Exception {
    return call(method, planner, path, null);
  }

  private static HttpResponse<String> call(String method, String planner, String path, Object body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(planner + path))
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
