package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 32's first acceptance test: a bot's trigger event holds only the workspace, its idempotency
 * key and {@code {"rev": "abc"}}. The configuration is the version last uploaded to the workspace,
 * the SSH private key a sensitive workspace variable (its {@code variable} block does not say
 * sensitive), the directory the deploy writes to comes from a variable set attached to the
 * workspace, and a sensitive environment variable reaches the {@code local-exec} step (its output
 * shows it redacted); the run deploys to a real OpenSSH sshd. Then every Kafka record, every
 * database row, every service log, the run's record, journal and plan, the state and every API
 * answer the test got are scanned: the key is in none of them, in clear or in base64.
 */
class WorkspaceVariablesTriggerTest {
  static SharedStack stack;
  static OpenSshServer sshd;
  static String tenant;
  static String secret;

  /** The API, keeping every answer this test read (scanned at the end). */
  final PlannerApi api = new PlannerApi(stack);

  static final String CONFIG =
      """
      variable "rev" {}
      variable "ssh_key" {}
      variable "markers" {}

      resource "stateful_provisioning" "app" {
        state_key = var.rev

        connection {
          type        = "ssh"
          host        = "127.0.0.1"
          port        = %d
          user        = "%s"
          private_key = var.ssh_key
          timeout     = "30s"
        }

        provisioner "remote-exec" {
          inline = ["touch ${var.markers}/deployed-${var.rev}"]
        }

        provisioner "local-exec" {
          command = "echo token=$DEPLOY_TOKEN"
        }
      }
      """;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    sshd = new OpenSshServer().start();
    PlannerApi.TriggerSecret issued = new PlannerApi(stack).issueTriggerSecret();
    tenant = issued.tenant();
    secret = issued.secret();
  }

  @AfterAll
  static void stop() throws Exception {
    if (sshd != null) {
      sshd.close();
    }
  }

  @Test
  void aOneLineTriggerDeploysWithASensitiveWorkspaceKeyThatAppearsNowhere() throws Exception {
    String ws = "bot-deploy-" + UUID.randomUUID().toString().substring(0, 8);
    Path markers = Files.createDirectories(stack.root.resolve("bot-deploy-markers"));
    String key = sshd.ed25519Key();
    // the key's base64 body lines: distinctive, and what any leak of the key would contain
    List<String> keyLines =
        key.lines().filter(l -> !l.startsWith("-----") && l.length() > 40).toList();
    assertThat(keyLines).isNotEmpty();

    JsonNode upload =
        api.send(
            "POST",
            "/api/v1/configuration-versions?workspace=" + ws,
            Map.of("files", Map.of("main.tf", CONFIG.formatted(sshd.port(), sshd.user()))),
            201);
    assertThat(upload.path("workspace").asText()).isEqualTo(ws);
    api.send(
        "PUT",
        "/api/v1/workspaces/" + ws + "/variables/ssh_key",
        Map.of("value", key, "sensitive", true, "description", "deploy key"),
        200);
    String token = "tok" + UUID.randomUUID().toString().replace("-", "");
    api.send(
        "PUT",
        "/api/v1/workspaces/" + ws + "/variables/DEPLOY_TOKEN",
        Map.of("value", token, "category", "env", "sensitive", true),
        200);
    String set = "markers-" + ws;
    api.send("POST", "/api/v1/variable-sets", Map.of("name", set, "global", false), 201);
    api.send(
        "PUT",
        "/api/v1/variable-sets/" + set + "/variables/markers",
        Map.of("value", markers.toString()),
        200);
    api.send("PUT", "/api/v1/variable-sets/" + set + "/workspaces/" + ws, Map.of(), 200);

    JsonNode listed = api.send("GET", "/api/v1/workspaces/" + ws + "/variables", null, 200);
    JsonNode sshKey = variable(listed, "ssh_key");
    assertThat(sshKey.path("sensitive").asBoolean()).isTrue();
    assertThat(sshKey.has("value")).as("write-only: %s", sshKey).isFalse();

    String idempotencyKey = "bot-" + UUID.randomUUID();
    HttpResponse<String> accepted = trigger(ws, idempotencyKey, Map.of("rev", "abc"));
    assertThat(accepted.statusCode()).as(accepted.body()).isBetween(200, 202);
    String runId = ChatOpsTriggerTest.runIdFor(tenant, idempotencyKey);
    await().atMost(Duration.ofSeconds(90)).until(() -> terminalStatus(runId) != null);
    JsonNode run = api.send("GET", "/api/v1/runs/" + runId, null, 200);
    assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("applied");
    assertThat(markers.resolve("deployed-abc")).exists();
    assertThat(run.path("source").path("kind").asText()).isEqualTo("upload");
    assertThat(sources(run))
        .containsEntry("rev", "run")
        .containsEntry("ssh_key", "workspace (sensitive)")
        .containsEntry("markers", "variable set \"" + set + "\"");
    String events = api.get("/api/v1/runs/" + runId + "/events?after=0&wait=0");
    assertThat(events)
        .as("the plan says where each variable came from")
        .contains("var.ssh_key from workspace (sensitive)")
        .contains("var.rev from run")
        .contains("env DEPLOY_TOKEN from workspace (sensitive)");
    assertThat(events)
        .as("the environment reached the step, redacted in its output")
        .contains("token=(sensitive value)");

    // every place the system wrote, and every answer the test read
    Map<String, String> scanned = new LinkedHashMap<>(api.answers);
    scanned.put("run events", events);
    scanned.put("history", api.get("/api/v1/workspaces/" + ws + "/variables/history"));
    scanned.put("state", api.get("/api/v1/workspaces/" + ws + "/state-versions"));
    List<String> records = LeakScan.kafkaRecords(stack);
    assertThat(records).anyMatch(r -> r.contains("dev.stagecraft.action.dispatched"));
    for (int i = 0; i < records.size(); i++) {
      scanned.put("kafka #" + i, records.get(i));
    }
    String rows = LeakScan.databaseRows(stack);
    assertThat(rows).contains(ws);
    scanned.put("database", rows);
    scanned.putAll(LeakScan.serviceLogs(stack));
    List<String> leaks = new ArrayList<>();
    scanned.forEach(
        (where, text) -> {
          for (String line : keyLines) {
            leaks.addAll(LeakScan.occurrences(where, text, "ssh key", line));
          }
          leaks.addAll(LeakScan.occurrences(where, text, "deploy token", token));
        });
    assertThat(leaks).as("places holding the key or the token").isEmpty();
  }

  /** Each used variable's source as {@code runs show} gives it, "(sensitive)" appended. */
  static Map<String, String> sources(JsonNode run) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode v : run.path("variableSources")) {
      out.put(
          v.path("key").asText(),
          v.path("source").asText() + (v.path("sensitive").asBoolean() ? " (sensitive)" : ""));
    }
    return out;
  }

  static JsonNode variable(JsonNode listed, String key) {
    for (JsonNode v : listed.path("variables")) {
      if (key.equals(v.path("key").asText())) {
        return v;
      }
    }
    throw new AssertionError("no variable " + key + " in " + listed);
  }

  String terminalStatus(String runId) throws Exception {
    HttpResponse<String> r = api.request("GET", "/api/v1/runs/" + runId, null);
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode run = EventCodec.mapper().readTree(r.body());
    return run.path("terminal").asBoolean() ? run.path("status").asText() : null;
  }

  HttpResponse<String> trigger(String ws, String idempotencyKey, Map<String, String> variables)
      throws Exception {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("workspace", ws);
    data.put("variables", variables);
    data.put("requested_by", "deploy-bot");
    data.put("idempotency_key", idempotencyKey);
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("specversion", "1.0");
    envelope.put("id", "evt-" + UUID.randomUUID());
    envelope.put("source", "/bots/deploy");
    envelope.put("type", "dev.stagecraft.run.requested");
    envelope.put("time", Instant.now().toString());
    envelope.put("datacontenttype", "application/json");
    envelope.put("tenant", tenant);
    envelope.put("data", data);
    String body = EventCodec.mapper().writeValueAsString(envelope);
    long now = Instant.now().getEpochSecond();
    return api.postUnauthenticated(
        "/api/v1/hooks/run-requests",
        body,
        Map.of(
            "Content-Type",
            "application/cloudevents+json",
            "stagecraft-timestamp",
            Long.toString(now),
            "stagecraft-signature",
            ChatOpsTriggerTest.sign(secret, now, body)));
  }
}
