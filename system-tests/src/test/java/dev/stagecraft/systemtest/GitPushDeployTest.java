package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.sshtestkit.GitDaemon;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 32's git acceptance test, against a real {@code git daemon} on loopback: a workspace
 * follows branch {@code main} of a repository (configuration in {@code deploy/}); a signed GitHub
 * push webhook starts one run that deploys the pushed commit ({@code state_key =
 * var.stagecraft_commit_sha}); the same delivery again starts nothing; a second push replaces the
 * resource; a push to another branch starts nothing; a wrongly signed push changes nothing; a
 * workspace whose repository cannot be reached fails its run at {@code planning}, clearly, with
 * nothing applied.
 */
class GitPushDeployTest {
  static SharedStack stack;
  static GitDaemon daemon;
  static Path repos;
  static String tenant;
  static String secret;
  final PlannerApi api = new PlannerApi(stack);

  static final String CONFIG =
      """
      variable "stagecraft_commit_sha" {}

      resource "stateful_provisioning" "app" {
        state_key = var.stagecraft_commit_sha

        provisioner "local-exec" {
          command = "echo deploying %s ${var.stagecraft_commit_sha}"
        }
      }
      """;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    repos = Files.createDirectories(stack.root.resolve("git-push-repos"));
    daemon = GitDaemon.start(repos);
    PlannerApi.TriggerSecret issued = new PlannerApi(stack).issueTriggerSecret();
    tenant = issued.tenant();
    secret = issued.secret();
  }

  @AfterAll
  static void stop() throws Exception {
    if (daemon != null) {
      daemon.close();
    }
  }

  @Test
  void aSignedPushDeploysThePushedCommitOncePerDelivery() throws Exception {
    String name = "app-" + UUID.randomUUID().toString().substring(0, 8);
    String ws = "git-" + name;
    Git git = GitDaemon.init(repos, name + ".git");
    GitDaemon.commit(git, "README.md", "the app\n");
    RevCommit first = GitDaemon.commit(git, "deploy/main.tf", CONFIG.formatted("v1"));
    String url = daemon.url(name + ".git");
    api.send("POST", "/api/v1/workspaces", Map.of("name", ws), 201);
    api.send(
        "PUT",
        "/api/v1/workspaces/" + ws + "/source",
        Map.of("kind", "git", "url", url, "branch", "main", "directory", "deploy"),
        200);

    String delivery = UUID.randomUUID().toString();
    JsonNode pushed = push(url, "refs/heads/main", first.name(), delivery, "deploy/main.tf", 202);
    String run1 = onlyRun(pushed, ws);
    JsonNode applied1 = awaitEnded(run1);
    assertThat(applied1.path("status").asText()).as(applied1.toString()).isEqualTo("applied");
    assertThat(applied1.path("source").path("commit").asText()).isEqualTo(first.name());
    assertThat(applied1.path("source").path("repository").asText()).isEqualTo(url);
    assertThat(stateKey(ws)).isEqualTo(first.name());

    // the same delivery again: the run it made, nothing new
    JsonNode again = push(url, "refs/heads/main", first.name(), delivery, "deploy/main.tf", 202);
    assertThat(onlyRun(again, ws)).isEqualTo(run1);
    assertThat(again.at("/runs/0/replayed").asBoolean()).isTrue();
    assertThat(runsOf(ws)).hasSize(1);

    // a second push replaces the resource with the new commit
    RevCommit second = GitDaemon.commit(git, "deploy/main.tf", CONFIG.formatted("v2"));
    JsonNode pushed2 =
        push(
            url,
            "refs/heads/main",
            second.name(),
            UUID.randomUUID().toString(),
            "deploy/main.tf",
            202);
    String run2 = onlyRun(pushed2, ws);
    assertThat(run2).isNotEqualTo(run1);
    JsonNode applied2 = awaitEnded(run2);
    assertThat(applied2.path("status").asText()).as(applied2.toString()).isEqualTo("applied");
    assertThat(api.get("/api/v1/runs/" + run2 + "/events?after=0&wait=0"))
        .as("the second run replaced the resource")
        .contains("must be replaced");
    assertThat(stateKey(ws)).isEqualTo(second.name());

    // another branch, and a bad signature: nothing starts
    JsonNode other =
        push(
            url,
            "refs/heads/feature",
            second.name(),
            UUID.randomUUID().toString(),
            "deploy/main.tf",
            202);
    assertThat(other.path("runs")).isEmpty();
    String body = payload(url, "refs/heads/main", second.name(), "deploy/main.tf");
    HttpResponse<String> forged =
        webhook(body, UUID.randomUUID().toString(), "sha256=" + hmac("not-the-secret", body));
    assertThat(forged.statusCode()).as(forged.body()).isEqualTo(401);
    assertThat(runsOf(ws)).hasSize(2);
  }

  @Test
  void anUnreachableRepositoryFailsTheRunAtPlanningWithNothingApplied() throws Exception {
    String ws = "git-unreachable-" + UUID.randomUUID().toString().substring(0, 8);
    api.send("POST", "/api/v1/workspaces", Map.of("name", ws), 201);
    api.send(
        "PUT",
        "/api/v1/workspaces/" + ws + "/source",
        Map.of("kind", "git", "url", "git://127.0.0.1:1/nothing.git", "branch", "main"),
        200);
    JsonNode started = api.send("POST", "/api/v1/runs", Map.of("workspace", ws), 201);
    JsonNode ended = awaitEnded(started.path("id").asText());
    assertThat(ended.path("status").asText()).as(ended.toString()).isEqualTo("errored");
    String events =
        api.get("/api/v1/runs/" + started.path("id").asText() + "/events?after=0&wait=0");
    assertThat(events).contains("Configuration source unavailable").contains("127.0.0.1:1");
    assertThat(events).doesNotContain("\"applying\"");
  }

  /** The state key recorded for the workspace's resource ({@code stagecraft state show}). */
  String stateKey(String ws) throws Exception {
    SharedStack.CliResult shown =
        stack.cli(
            stack.configDir("git-show-" + ws, ""),
            "state",
            "show",
            "-workspace=" + ws,
            "stateful_provisioning.app");
    assertThat(shown.exitCode()).as(shown.all()).isZero();
    for (String line : shown.out().lines().toList()) {
      String l = line.strip();
      if (l.startsWith("state_key")) {
        return l.substring(l.indexOf('"') + 1, l.lastIndexOf('"'));
      }
    }
    throw new AssertionError("no state_key in " + shown.out());
  }

  List<JsonNode> runsOf(String ws) throws Exception {
    JsonNode page = api.send("GET", "/api/v1/runs?workspace=" + ws, null, 200);
    JsonNode items = page.has("items") ? page.get("items") : page;
    return StreamSupport.stream(items.spliterator(), false).toList();
  }

  static String onlyRun(JsonNode pushed, String ws) {
    assertThat(pushed.path("runs")).as(pushed.toString()).hasSize(1);
    assertThat(pushed.at("/runs/0/workspace").asText()).isEqualTo(ws);
    return pushed.at("/runs/0/run").asText();
  }

  JsonNode awaitEnded(String runId) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              HttpResponse<String> r = api.request("GET", "/api/v1/runs/" + runId, null);
              return r.statusCode() == 200 ? EventCodec.mapper().readTree(r.body()) : null;
            },
            run -> run != null && run.path("terminal").asBoolean());
  }

  JsonNode push(String url, String ref, String after, String delivery, String path, int expected)
      throws Exception {
    String body = payload(url, ref, after, path);
    HttpResponse<String> r = webhook(body, delivery, "sha256=" + hmac(secret, body));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(expected);
    return EventCodec.mapper().readTree(r.body());
  }

  /** A GitHub push event, as GitHub sends it (the fields Stagecraft reads, and a few others). */
  static String payload(String url, String ref, String after, String path) throws Exception {
    Map<String, Object> repository = new LinkedHashMap<>();
    repository.put("full_name", "acme/app");
    repository.put("clone_url", url);
    repository.put("html_url", "https://github.example/acme/app");
    Map<String, Object> commit = new LinkedHashMap<>();
    commit.put("id", after);
    commit.put("message", "deploy the app");
    commit.put("added", List.of());
    commit.put("modified", List.of(path));
    commit.put("removed", List.of());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("ref", ref);
    body.put("before", "0".repeat(40).replace('0', 'a'));
    body.put("after", after);
    body.put("repository", repository);
    body.put("pusher", Map.of("name", "alice"));
    body.put("commits", List.of(commit));
    body.put("head_commit", commit);
    return EventCodec.mapper().writeValueAsString(body);
  }

  static String hmac(String key, String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
  }

  HttpResponse<String> webhook(String body, String delivery, String signature) throws Exception {
    return api.postUnauthenticated(
        "/api/v1/hooks/push/" + tenant,
        body,
        Map.of(
            "Content-Type",
            "application/json",
            "X-GitHub-Event",
            "push",
            "X-GitHub-Delivery",
            delivery,
            "X-Hub-Signature-256",
            signature));
  }
}
