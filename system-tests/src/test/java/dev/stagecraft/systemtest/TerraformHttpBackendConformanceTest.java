package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Conformance of the Terraform HTTP backend ({@code /tf/v1/workspaces/{ws}/...}) against the real
 * stack (state-service, lock-service, PostgreSQL, Kafka as separate processes), driven with {@code
 * curl} exactly as Terraform's http backend client talks: {@code GET} (200 + {@code Content-MD5} or
 * 204), {@code POST ?ID=} with {@code Content-MD5}, {@code DELETE}, {@code LOCK}/{@code UNLOCK}
 * with LockInfo JSON ({@code ID, Operation, Info, Who, Version, Created, Path}), {@code 423} with
 * the holder's LockInfo, {@code force-unlock}'s empty-body UNLOCK, HTTP basic auth with the API
 * token as password. Every bad input is checked to leave the workspace history as it was.
 */
class TerraformHttpBackendConformanceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static SharedStack stack;
  static String stateUrl;

  /** For the tenant and token routes. */
  static String operatorToken;

  /** For the lock service's routes. */
  static String plannerToken;

  static String deployer;
  static String admin;
  static String otherTenant;
  static Path realistic;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    stateUrl = stack.stack().info().state();
    operatorToken = stack.serviceToken(ServiceRole.OPERATOR);
    plannerToken = stack.serviceToken(ServiceRole.PLANNER);
    admin = stack.token();
    String tenant = "tfc-" + UUID.randomUUID().toString().substring(0, 8);
    deployer = tokenFor(tenant, "deployer");
    otherTenant = tokenFor(tenant + "-other", "deployer");
    realistic =
        SharedStack.repoRoot()
            .resolve("state-service/src/test/resources/terraform/realistic-v4.tfstate");
  }

  /** A new tenant's token with {@code role}, through the internal API. */
  static String tokenFor(String tenant, String role) throws Exception {
    Reply t =
        curl(
            "POST",
            stateUrl + "/internal/v1/tenants",
            null,
            Map.of("Authorization", "Bearer " + operatorToken, "Content-Type", "application/json"),
            ("{\"name\":\"" + tenant + "\"}").getBytes(StandardCharsets.UTF_8));
    assertThat(t.status()).as(t.text()).isEqualTo(200);
    Reply token =
        curl(
            "POST",
            stateUrl + "/internal/v1/tenants/" + tenant + "/tokens",
            null,
            Map.of("Authorization", "Bearer " + operatorToken, "Content-Type", "application/json"),
            ("{\"role\":\"" + role + "\"}").getBytes(StandardCharsets.UTF_8));
    assertThat(token.status()).as(token.text()).isEqualTo(201);
    return token.json().get("token").asText();
  }

  // ---------------------------------------------------------------- curl

  record Reply(int status, Map<String, String> headers, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }
  }

  /** One curl request; {@code basic} is {@code user:password} for HTTP basic auth, or null. */
  static Reply curl(
      String method, String url, String basic, Map<String, String> headers, byte[] body)
      throws Exception {
    Path dir = Files.createTempDirectory(stack.root, "curl-");
    Path out = dir.resolve("body");
    Path head = dir.resolve("headers");
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-X", method, "-D", head.toString()));
    cmd.addAll(List.of("-o", out.toString(), "-w", "%{http_code}", "-H", "Expect:"));
    if (basic != null) {
      cmd.addAll(List.of("-u", basic));
    }
    headers.forEach((k, v) -> cmd.addAll(List.of("-H", k + ": " + v)));
    if (body != null) {
      Path in = dir.resolve("upload");
      Files.write(in, body);
      cmd.addAll(List.of("--data-binary", "@" + in));
    }
    cmd.add(url);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
    String code = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("curl failed: " + err).isZero();
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String line : Files.readAllLines(head)) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        parsed.put(
            line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
      }
    }
    return new Reply(
        Integer.parseInt(code), parsed, Files.exists(out) ? Files.readAllBytes(out) : new byte[0]);
  }

  static String basic(String token) {
    return "stagecraft:" + token;
  }

  static String tf(String ws, String path) {
    return stateUrl + "/tf/v1/workspaces/" + ws + path;
  }

  static Reply get(String ws, String token) throws Exception {
    return curl("GET", tf(ws, "/state"), basic(token), Map.of(), null);
  }

  static Reply post(String ws, String token, String lockId, byte[] body) throws Exception {
    return curl(
        "POST",
        tf(ws, "/state") + (lockId == null ? "" : "?ID=" + lockId),
        basic(token),
        Map.of("Content-Type", "application/json", "Content-MD5", md5(body)),
        body);
  }

  static Reply lock(String ws, String token, ObjectNode info) throws Exception {
    return curl(
        "LOCK",
        tf(ws, "/lock"),
        basic(token),
        Map.of("Content-Type", "application/json"),
        JSON.writeValueAsBytes(info));
  }

  static Reply unlock(String ws, String token, String query, byte[] body) throws Exception {
    return curl(
        "UNLOCK",
        tf(ws, "/lock") + (query == null ? "" : query),
        basic(token),
        body == null ? Map.of() : Map.of("Content-Type", "application/json"),
        body);
  }

  /** Terraform's LockInfo as its http client sends it. */
  static ObjectNode lockInfo(String id, String who) {
    ObjectNode info = JSON.createObjectNode();
    info.put("ID", id);
    info.put("Operation", "OperationTypeApply");
    info.put("Info", "");
    info.put("Who", who);
    info.put("Version", "1.9.8");
    info.put("Created", "2026-11-21T10:00:00.123456789Z");
    info.put("Path", "");
    return info;
  }

  static String md5(byte[] body) throws Exception {
    return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
  }

  /** How many events the workspace's history holds (through the public API). */
  static int historyLength(String ws, String token) throws Exception {
    Reply r =
        curl(
            "GET",
            stateUrl + "/api/v1/workspaces/" + ws + "/state/events",
            null,
            Map.of("Authorization", "Bearer " + token),
            null);
    assertThat(r.status()).isEqualTo(200);
    return r.json().size();
  }

  static byte[] realisticWith(long serial, String lineage) throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(realistic.toFile());
    doc.put("serial", serial);
    if (lineage != null) {
      doc.put("lineage", lineage);
    }
    return JSON.writeValueAsBytes(doc);
  }

  static String ws(String name) {
    return name + "-" + UUID.randomUUID().toString().substring(0, 6);
  }

  // ---------------------------------------------------------------- protocol

  @Test
  void getOfAWorkspaceWithoutStateIs204() throws Exception {
    assertThat(get(ws("tf-empty"), deployer).status()).isEqualTo(204);
  }

  @Test
  void lockPushPullUnlockFollowsTerraformsHttpClient() throws Exception {
    String ws = ws("tf-cycle");
    String id = UUID.randomUUID().toString();
    byte[] state = Files.readAllBytes(realistic);

    Reply locked = lock(ws, deployer, lockInfo(id, "alice@laptop"));
    assertThat(locked.status()).as(locked.text()).isEqualTo(200);

    Reply stored = post(ws, deployer, id, state);
    assertThat(stored.status()).as(stored.text()).isEqualTo(200);

    Reply pulled = get(ws, deployer);
    assertThat(pulled.status()).isEqualTo(200);
    assertThat(pulled.headers().get("content-md5")).isEqualTo(md5(pulled.body()));
    assertThat(pulled.json()).isEqualTo(JSON.readTree(state)); // JSON semantics, not bytes

    Reply unlocked =
        unlock(ws, deployer, null, JSON.writeValueAsBytes(lockInfo(id, "alice@laptop")));
    assertThat(unlocked.status()).as(unlocked.text()).isEqualTo(200);
    // free again: another client locks it
    assertThat(lock(ws, deployer, lockInfo(UUID.randomUUID().toString(), "bob")).status())
        .isEqualTo(200);
  }

  @Test
  void aTakenLockAnswers423WithTheHoldersLockInfo() throws Exception {
    String ws = ws("tf-423");
    String id = UUID.randomUUID().toString();
    assertThat(lock(ws, deployer, lockInfo(id, "alice@laptop")).status()).isEqualTo(200);

    Reply second = lock(ws, deployer, lockInfo(UUID.randomUUID().toString(), "bob@ci"));

    assertThat(second.status()).isEqualTo(423);
    JsonNode holder = second.json();
    assertThat(holder.get("ID").asText()).isEqualTo(id);
    assertThat(holder.get("Who").asText()).isEqualTo("alice@laptop");
    for (String field : List.of("ID", "Operation", "Info", "Who", "Version", "Created", "Path")) {
      assertThat(holder.has(field)).as(field).isTrue();
    }
  }

  @Test
  void writesWhileLockedNeedTheHoldersId() throws Exception {
    String ws = ws("tf-id");
    String id = UUID.randomUUID().toString();
    assertThat(lock(ws, deployer, lockInfo(id, "alice")).status()).isEqualTo(200);
    int before = historyLength(ws, deployer);

    Reply withoutId = post(ws, deployer, null, Files.readAllBytes(realistic));
    Reply wrongId = post(ws, deployer, "not-" + id, Files.readAllBytes(realistic));
    Reply deleteWrongId =
        curl("DELETE", tf(ws, "/state") + "?ID=nope", basic(deployer), Map.of(), null);
    Reply unlockWrongId =
        unlock(ws, deployer, null, JSON.writeValueAsBytes(lockInfo("nope", "mallory")));

    assertThat(withoutId.status()).as(withoutId.text()).isEqualTo(423);
    assertThat(wrongId.status()).as(wrongId.text()).isEqualTo(409);
    assertThat(wrongId.text()).contains("not the holder's");
    assertThat(deleteWrongId.status()).isEqualTo(409);
    assertThat(unlockWrongId.status()).isEqualTo(409);
    assertThat(historyLength(ws, deployer)).isEqualTo(before);
    assertThat(lock(ws, deployer, lockInfo("x", "y")).status()).isEqualTo(423); // still locked
  }

  @Test
  void deleteIsAnEventAndTheStateReadsEmptyAfterwards() throws Exception {
    String ws = ws("tf-delete");
    assertThat(post(ws, deployer, null, Files.readAllBytes(realistic)).status()).isEqualTo(200);
    int before = historyLength(ws, deployer);

    Reply deleted = curl("DELETE", tf(ws, "/state"), basic(deployer), Map.of(), null);

    assertThat(deleted.status()).isEqualTo(200);
    assertThat(get(ws, deployer).status()).isEqualTo(204);
    assertThat(historyLength(ws, deployer)).isEqualTo(before + 1);
    Reply version =
        curl(
            "GET",
            stateUrl + "/api/v1/workspaces/" + ws + "/state/versions/17",
            null,
            Map.of("Authorization", "Bearer " + deployer),
            null);
    assertThat(version.status()).isEqualTo(200); // nothing was physically deleted
    assertThat(version.json()).isEqualTo(JSON.readTree(realistic.toFile()));
  }

  @Test
  void aBackendLockIsTheLockRunsTake() throws Exception {
    String ws = ws("tf-shared");
    String id = UUID.randomUUID().toString();
    assertThat(lock(ws, admin, lockInfo(id, "alice@laptop")).status()).isEqualTo(200);
    Path dir =
        stack.configDir(
            ws,
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
            }
            """);

    CompletableFuture<CliResult> apply =
        CompletableFuture.supplyAsync(
            () -> stack.cli(dir, "apply", "-workspace=" + ws, "-auto-approve"));
    // the run waits in the lock service's queue behind the Terraform client's lock
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> lockView(ws, "admin").path("queue").size() == 1);
    JsonNode view = lockView(ws, "admin");
    assertThat(view.path("holder").asText()).isEqualTo("terraform:" + id);
    assertThat(apply).isNotDone();
    assertThat(get(ws, admin).status()).isEqualTo(204);

    assertThat(unlock(ws, admin, null, JSON.writeValueAsBytes(lockInfo(id, "alice"))).status())
        .isEqualTo(200);

    // once the Terraform client unlocked, the run takes the lock and writes the state
    CliResult result = apply.get(120, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.all()).isZero();
    assertThat(result.out()).contains("Waiting for the workspace lock");
    assertThat(get(ws, admin).json().path("resources").get(0).path("type").asText())
        .as(result.all())
        .isEqualTo("stateful_provisioning");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> lockView(ws, "admin").path("lockId").isNull()); // the run released it
  }

  /** The lock-service's own view of the workspace lock (internal API) for the dev tenant. */
  static JsonNode lockView(String ws, String tenantOfToken) throws Exception {
    String tenant = stack.stack().credentials().orElseThrow().tenant();
    Reply r =
        curl(
            "GET",
            stack.stack().info().lock()
                + "/internal/v1/tenants/"
                + tenant
                + "/workspaces/"
                + ws
                + "/lock",
            null,
            Map.of("Authorization", "Bearer " + plannerToken),
            null);
    assertThat(r.status()).isEqualTo(200);
    return r.json();
  }

  @Test
  void backendLocksGetALongLeaseRenewedByEveryUploadUnderTheLock() throws Exception {
    String ws = ws("tf-lease");
    String id = UUID.randomUUID().toString();
    Instant before = Instant.now();
    assertThat(lock(ws, admin, lockInfo(id, "alice")).status()).isEqualTo(200);
    Instant firstExpiry = Instant.parse(lockView(ws, "admin").path("leaseExpiresAt").asText());
    assertThat(firstExpiry).isAfter(before.plus(Duration.ofMinutes(50))); // policy: 3600 s

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> Instant.now().isAfter(firstExpiry.minus(Duration.ofSeconds(3600)).plusMillis(5)));
    assertThat(post(ws, admin, id, Files.readAllBytes(realistic)).status()).isEqualTo(200);

    Instant renewed = Instant.parse(lockView(ws, "admin").path("leaseExpiresAt").asText());
    assertThat(renewed).isAfter(firstExpiry);
    unlock(ws, admin, null, JSON.writeValueAsBytes(lockInfo(id, "alice")));
  }

  // ---------------------------------------------------------------- force-unlock

  @Test
  void forceUnlockWithAnEmptyBodyNeedsTheLockIdOrAnAdminAndIsAudited() throws Exception {
    String ws = ws("tf-force");
    String id = UUID.randomUUID().toString();
    assertThat(lock(ws, deployer, lockInfo(id, "crashed-ci")).status()).isEqualTo(200);
    int before = historyLength(ws, deployer);

    Reply noId = unlock(ws, deployer, null, null); // what `terraform force-unlock` sends
    assertThat(noId.status()).as(noId.text()).isEqualTo(409);
    assertThat(noId.text()).contains("lock ID").contains(id);
    assertThat(historyLength(ws, deployer)).isEqualTo(before);

    Reply forced = unlock(ws, deployer, "?ID=" + id + "&reason=ci%20runner%20died", null);
    assertThat(forced.status()).as(forced.text()).isEqualTo(200);
    assertThat(lock(ws, deployer, lockInfo(UUID.randomUUID().toString(), "next")).status())
        .isEqualTo(200);

    JsonNode history =
        curl(
                "GET",
                stateUrl + "/api/v1/workspaces/" + ws + "/state/events",
                null,
                Map.of("Authorization", "Bearer " + deployer),
                null)
            .json();
    JsonNode last = history.get(history.size() - 1);
    assertThat(last.path("type").asText()).isEqualTo("lock_force_unlocked");
    assertThat(last.path("actor").asText()).startsWith("api-token:");
    JsonNode event = awaitLockEvent(ws, id);
    assertThat(event.path("data").path("reason").asText()).isEqualTo("ci runner died");
    assertThat(event.path("data").path("via").asText()).isEqualTo("terraform-http-backend");
  }

  @Test
  void anAdminMayForceUnlockWithoutTheIdAndTheCliNeedsIdAndReason() throws Exception {
    String ws = ws("tf-force-admin");
    String id = UUID.randomUUID().toString();
    assertThat(lock(ws, admin, lockInfo(id, "gone")).status()).isEqualTo(200);
    assertThat(unlock(ws, admin, null, null).status()).isEqualTo(200);

    String id2 = UUID.randomUUID().toString();
    assertThat(lock(ws, admin, lockInfo(id2, "gone-again")).status()).isEqualTo(200);
    Path dir = stack.root;
    CliResult noReason = stack.cli(dir, "force-unlock", "-workspace=" + ws, id2);
    assertThat(noReason.exitCode()).isEqualTo(1);
    assertThat(noReason.err()).contains("-reason");
    CliResult wrongId =
        stack.cli(dir, "force-unlock", "-workspace=" + ws, "not-it", "-reason=stuck");
    assertThat(wrongId.exitCode()).isEqualTo(1);
    assertThat(wrongId.err()).contains("not the holder's");
    CliResult ok = stack.cli(dir, "force-unlock", "-workspace=" + ws, id2, "-reason=stuck lock");
    assertThat(ok.exitCode()).as(ok.all()).isZero();
    JsonNode event = awaitLockEvent(ws, id2);
    assertThat(event.path("data").path("via").asText()).isEqualTo("rest");
    assertThat(event.path("data").path("reason").asText()).isEqualTo("stuck lock");
  }

  /** The force-unlock event for {@code lockId}, validated against its JSON Schema. */
  static JsonNode awaitLockEvent(String ws, String lockId) throws Exception {
    Properties p = stack.kafka("admin"); // an auditor's view of lock-events
    p.put("group.id", "tf-conformance-" + UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    EventSchemaValidator validator = new EventSchemaValidator();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of("stagecraft.lock-events"));
      JsonNode[] found = new JsonNode[1];
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(300))) {
                  String value = new String(r.value(), StandardCharsets.UTF_8);
                  JsonNode json = JSON.readTree(value);
                  if (json.path("workspace").asText().equals(ws)
                      && json.path("data").path("lockId").asText().equals(lockId)) {
                    assertThat(validator.validate(value)).as(value).isEmpty();
                    found[0] = json;
                  }
                }
                return found[0] != null;
              });
      return found[0];
    }
  }

  // ---------------------------------------------------------------- bad input

  @Test
  void badInputIsRejectedWithAClearErrorAndNothingIsStored() throws Exception {
    String ws = ws("tf-bad");
    assertThat(post(ws, deployer, null, Files.readAllBytes(realistic)).status()).isEqualTo(200);
    int before = historyLength(ws, deployer);
    byte[] next = realisticWith(18, null);

    Reply malformed = post(ws, deployer, null, "{\"version\": 4, \"serial\": ".getBytes());
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(malformed.text()).contains("not valid JSON").contains("line");

    Reply wrongMd5 =
        curl(
            "POST",
            tf(ws, "/state"),
            basic(deployer),
            Map.of("Content-Type", "application/json", "Content-MD5", md5("other".getBytes())),
            next);
    assertThat(wrongMd5.status()).isEqualTo(400);
    assertThat(wrongMd5.text()).contains("Content-MD5");

    Reply backwards = post(ws, deployer, null, realisticWith(16, null));
    assertThat(backwards.status()).isEqualTo(409);
    assertThat(backwards.text()).contains("lower than the current serial 17");

    Reply otherLineage = post(ws, deployer, null, realisticWith(30, UUID.randomUUID().toString()));
    assertThat(otherLineage.status()).isEqualTo(409);
    assertThat(otherLineage.text()).contains("lineage");

    ObjectNode badShape = (ObjectNode) JSON.readTree(next);
    ((ObjectNode) badShape.get("resources").get(0)).put("mode", "resource");
    Reply invalid = post(ws, deployer, null, JSON.writeValueAsBytes(badShape));
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.text()).contains("$.resources[0].mode");

    Reply noToken =
        curl("POST", tf(ws, "/state"), null, Map.of("Content-Type", "application/json"), next);
    assertThat(noToken.status()).isEqualTo(401);
    Reply wrongPassword = post(ws, "sc_not-a-token", null, next);
    assertThat(wrongPassword.status()).isEqualTo(401);

    String revoked =
        tokenFor("tfc-rev-" + UUID.randomUUID().toString().substring(0, 6), "deployer");
    Reply revoke =
        curl(
            "POST",
            stateUrl + "/internal/v1/tokens/revoke",
            null,
            Map.of("Authorization", "Bearer " + operatorToken, "Content-Type", "application/json"),
            ("{\"token\":\"" + revoked + "\"}").getBytes(StandardCharsets.UTF_8));
    assertThat(revoke.status()).isEqualTo(200);
    assertThat(get(ws, revoked).status()).isEqualTo(401);
    assertThat(post(ws, revoked, null, next).status()).isEqualTo(401);

    // another tenant's workspace does not exist for this token
    assertThat(get(ws, otherTenant).status()).isEqualTo(204);
    Reply otherVersions =
        curl(
            "GET",
            stateUrl + "/api/v1/workspaces/" + ws + "/state/versions",
            null,
            Map.of("Authorization", "Bearer " + otherTenant),
            null);
    assertThat(otherVersions.status()).isEqualTo(404);
    Reply otherVersion =
        curl(
            "GET",
            stateUrl + "/api/v1/workspaces/" + ws + "/state/versions/17",
            null,
            Map.of("Authorization", "Bearer " + otherTenant),
            null);
    assertThat(otherVersion.status()).isEqualTo(404);

    // unknown workspace / version
    Reply unknown =
        curl(
            "GET",
            stateUrl + "/api/v1/workspaces/no-such-" + ws + "/state/versions/1",
            null,
            Map.of("Authorization", "Bearer " + deployer),
            null);
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.text()).contains("has no state version 1");

    assertThat(historyLength(ws, deployer)).isEqualTo(before);
    assertThat(get(ws, deployer).json()).isEqualTo(JSON.readTree(realistic.toFile()));
    assertThat(post(ws, deployer, null, next).status()).isEqualTo(200); // a good one still works
  }

  // ---------------------------------------------------------------- versions (REST + CLI)

  @Test
  void versionsListReadDiffAndRollBackUnderTheLock() throws Exception {
    String ws = ws("tf-versions");
    Path file = stack.root.resolve(ws + ".tfstate");
    Files.copy(realistic, file);
    CliResult pushed = stack.cli(stack.root, "state", "push", "-workspace=" + ws, file.toString());
    assertThat(pushed.exitCode()).as(pushed.all()).isZero();
    ObjectNode changed = (ObjectNode) JSON.readTree(realisticWith(18, null));
    ObjectNode db =
        (ObjectNode) changed.get("resources").get(3).get("instances").get(0).get("attributes");
    db.put("password", "n3w-s3cr3t");
    db.put("allocated_storage", 40);
    Files.write(file, JSON.writeValueAsBytes(changed));
    assertThat(
            stack.cli(stack.root, "state", "push", "-workspace=" + ws, file.toString()).exitCode())
        .isZero();
    Files.write(file, realisticWith(12, null));
    CliResult lower = stack.cli(stack.root, "state", "push", "-workspace=" + ws, file.toString());
    assertThat(lower.exitCode()).isEqualTo(1);
    assertThat(lower.err()).contains("lower than the current serial 18");

    CliResult versions = stack.cli(stack.root, "state", "versions", "-workspace=" + ws);
    assertThat(versions.exitCode()).as(versions.all()).isZero();
    assertThat(versions.out())
        .contains("17 ")
        .contains("18 ")
        .contains("state_pushed")
        .contains("sha256:");

    CliResult v17 = stack.cli(stack.root, "state", "pull", "-workspace=" + ws, "-version=17");
    assertThat(JSON.readTree(v17.out())).isEqualTo(JSON.readTree(realistic.toFile()));

    CliResult diff = stack.cli(stack.root, "state", "diff", "-workspace=" + ws, "17", "18");
    assertThat(diff.exitCode()).as(diff.all()).isZero();
    assertThat(diff.out())
        .contains("~ module.db.aws_db_instance.main (changed)")
        .contains("allocated_storage: 20 -> 40")
        .contains("password: \"(sensitive value)\" -> \"(sensitive value)\"")
        .doesNotContain("s3cr3t");

    // REST rollback needs the lock
    Reply noLock =
        curl(
            "POST",
            stateUrl + "/api/v1/workspaces/" + ws + "/state/rollback",
            null,
            Map.of("Authorization", "Bearer " + admin, "Content-Type", "application/json"),
            "{\"serial\":17,\"lockId\":\"not-held\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(noLock.status()).isEqualTo(409);
    CliResult rollback = stack.cli(stack.root, "state", "rollback", "-workspace=" + ws, "17");
    assertThat(rollback.exitCode()).as(rollback.all()).isZero();
    assertThat(rollback.out()).contains("serial 19");
    ObjectNode expected = (ObjectNode) JSON.readTree(realistic.toFile());
    expected.put("serial", 19);
    assertThat(get(ws, admin).json()).isEqualTo(expected);
    JsonNode history =
        curl(
                "GET",
                stateUrl + "/api/v1/workspaces/" + ws + "/state/events",
                null,
                Map.of("Authorization", "Bearer " + admin),
                null)
            .json();
    JsonNode last = history.get(history.size() - 1);
    assertThat(last.path("type").asText()).isEqualTo("state_rolled_back");
    assertThat(last.path("actor").asText()).startsWith("api-token:");
  }
}
