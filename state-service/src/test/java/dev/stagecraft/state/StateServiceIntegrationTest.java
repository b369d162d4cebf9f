package dev.stagecraft.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.state.StateRecorded;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The state service against a real PostgreSQL and a real Kafka broker, over HTTP and Kafka. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StateServiceIntegrationTest {
  /** The internal routes' main caller's token (the planner's: every internal route takes it). */
  private static final String SERVICE_TOKEN = TestTokens.PLANNER;

  private static final String APP = "stateful_provisioning.app";

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedKafka kafka;
  private EmbeddedServer server;
  private EventPublisher executor;
  private KafkaConsumer<String, byte[]> stateEvents;
  private final List<EventEnvelope> recorded = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private final EventCodec executorCodec = EventCodec.forSource("/test/executor");

  @BeforeAll
  void startStack() throws Exception {
    dir = Files.createTempDirectory("state-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    server =
        ApplicationContext.run(
            EmbeddedServer.class,
            Map.of(
                "micronaut.server.port",
                -1,
                "stagecraft.db.url",
                postgres.jdbcUrl(),
                "stagecraft.db.user",
                postgres.user(),
                "stagecraft.db.password",
                postgres.password(),
                "stagecraft.kafka-bootstrap",
                kafka.bootstrapServers(),
                "stagecraft.service-tokens.planner",
                TestTokens.PLANNER,
                "stagecraft.service-tokens.state",
                TestTokens.STATE,
                "stagecraft.instance-id",
                "state-it"));
    KafkaSettings settings = new KafkaSettings(kafka.bootstrapServers());
    executor = new EventPublisher(settings, "test-executor");
    stateEvents =
        new KafkaConsumer<>(settings.consumer("test-" + UUID.randomUUID(), "test", "earliest"));
    stateEvents.subscribe(List.of(Topics.STATE_EVENTS));
  }

  @AfterAll
  void stopStack() throws Exception {
    if (stateEvents != null) {
      stateEvents.close();
    }
    if (executor != null) {
      executor.close();
    }
    if (server != null) {
      server.getApplicationContext().close(); // before the broker, or clients retry for long
    }
    if (kafka != null) {
      kafka.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void recordsFinishedActionAndServesTerraformV4State() throws Exception {
    String token = tenantWithToken("acme");
    EventEnvelope finished = finished("acme", "prod", "run-1", "act-1", "create", "succeeded", 1);

    executor.publish(finished);

    EventEnvelope recordedEvent = awaitRecorded("acme", "act-1", 1).get(0);
    StateRecorded data = EventCodec.data(recordedEvent, StateRecorded.class);
    assertThat(data.outcome()).isEqualTo("succeeded");
    assertThat(data.serial()).isEqualTo(1);
    assertThat(data.address()).isEqualTo(APP);
    assertThat(recordedEvent.workspace()).isEqualTo("prod");
    assertThat(recordedEvent.runid()).isEqualTo("run-1");
    assertThat(recordedEvent.source()).isEqualTo("/stagecraft/state-service");
    assertThat(new EventSchemaValidator().validate(EventCodec.toJson(recordedEvent))).isEmpty();

    HttpResponse<String> state = get("/api/v1/workspaces/prod/state", token);
    assertThat(state.statusCode()).isEqualTo(200);
    JsonNode v4 = EventCodec.mapper().readTree(state.body());
    assertThat(v4.get("version").asInt()).isEqualTo(4);
    assertThat(v4.get("serial").asLong()).isEqualTo(1);
    assertThat(v4.get("lineage").asText()).isNotBlank();
    assertThat(v4.get("outputs").isObject()).isTrue();
    JsonNode resource = v4.get("resources").get(0);
    assertThat(resource.get("type").asText()).isEqualTo("stateful_provisioning");
    assertThat(resource.get("name").asText()).isEqualTo("app");
    JsonNode instance = resource.get("instances").get(0);
    assertThat(instance.get("attributes").get("host").asText()).isEqualTo("10.0.0.1");
    assertThat(instance.get("dependencies").get(0).asText()).isEqualTo("stateful_provisioning.db");
    assertThat(instance.get("sensitive_attributes").isArray()).isTrue();

    HttpResponse<String> internal = internal("GET", "/tenants/acme/workspaces/prod/state", null);
    assertThat(EventCodec.mapper().readTree(internal.body())).isEqualTo(v4);

    HttpResponse<String> events = get("/api/v1/workspaces/prod/state/events", token);
    JsonNode list = EventCodec.mapper().readTree(events.body());
    assertThat(list).hasSize(2);
    assertThat(list.get(1).get("type").asText()).isEqualTo("instance_created");
    assertThat(list.get(1).get("sequence").asLong()).isEqualTo(2);
    assertThat(list.get(1).get("actionId").asText()).isEqualTo("act-1");
    assertThat(list.get(1).get("address").asText()).isEqualTo(APP);
  }

  @Test
  void servesTheFirstRecordedOutcomeOfEachActionOfARunToTheServiceTokenOnly() throws Exception {
    tenantWithToken("outcomes");
    String credential = mintCredential("outcomes", "ws", "run-o", 1);
    executor.publish(
        finished("outcomes", "ws", "run-o", "run-o/a", "create", "succeeded", 1, credential));
    awaitRecorded("outcomes", "run-o/a", 1);
    executor.publish(
        finished("outcomes", "ws", "run-o", "run-o/b", "create", "interrupted", 1, credential));
    // a late second outcome of the same action loses (the first is kept)
    executor.publish(
        finished("outcomes", "ws", "run-o", "run-o/a", "create", "failed", 1, credential));
    awaitRecorded("outcomes", "run-o/b", 1);
    awaitRecorded("outcomes", "run-o/a", 2);

    HttpResponse<String> r =
        internal("GET", "/tenants/outcomes/workspaces/ws/runs/run-o/action-outcomes", null);

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode outcomes = EventCodec.mapper().readTree(r.body()).get("outcomes");
    assertThat(outcomes).hasSize(2);
    assertThat(outcomes.get(0).get("actionId").asText()).isEqualTo("run-o/a");
    assertThat(outcomes.get(0).get("outcome").asText()).isEqualTo("succeeded");
    assertThat(outcomes.get(0).get("address").asText()).isEqualTo(APP);
    assertThat(outcomes.get(1).get("actionId").asText()).isEqualTo("run-o/b");
    // as its state.recorded says it: an interrupted action is recorded like a failed one
    assertThat(outcomes.get(1).get("outcome").asText()).isEqualTo("failed");
    assertThat(
            EventCodec.mapper()
                .readTree(
                    internal(
                            "GET",
                            "/tenants/outcomes/workspaces/other/runs/run-o/action-outcomes",
                            null)
                        .body())
                .get("outcomes"))
        .as("another workspace's run of the same id has none")
        .isEmpty();
    HttpResponse<String> withoutServiceToken =
        http.send(
            HttpRequest.newBuilder(
                    uri("/internal/v1/tenants/outcomes/workspaces/ws/runs/run-o/action-outcomes"))
                .header("Authorization", "Bearer " + credential)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(withoutServiceToken.statusCode()).isEqualTo(401);
  }

  @Test
  void duplicateDeliveryChangesNothingAndReemitsTheSameRecord() throws Exception {
    String token = tenantWithToken("dup");
    EventEnvelope finished = finished("dup", "ws", "run-1", "act-1", "create", "succeeded", 1);
    executor.publish(finished);
    awaitRecorded("dup", "act-1", 1);
    String before = get("/api/v1/workspaces/ws/state/events", token).body();

    executor.publish(finished); // same envelope id
    EventEnvelope retried = finished("dup", "ws", "run-1", "act-1", "create", "succeeded", 1);
    executor.publish(retried); // new envelope id, same action id

    List<EventEnvelope> all = awaitRecorded("dup", "act-1", 3);
    assertThat(all).extracting(EventEnvelope::id).containsOnly(all.get(0).id());
    assertThat(all).extracting(EventEnvelope::data).containsOnly(all.get(0).data());
    assertThat(get("/api/v1/workspaces/ws/state/events", token).body()).isEqualTo(before);
    JsonNode v4 = EventCodec.mapper().readTree(get("/api/v1/workspaces/ws/state", token).body());
    assertThat(v4.get("serial").asLong()).isEqualTo(1);
  }

  @Test
  void rejectsStateWriteWithStaleFencingToken() throws Exception {
    String token = tenantWithToken("fence");
    assertThat(
            internal("POST", "/tenants/fence/workspaces/ws/fencing", "{\"token\":7}").statusCode())
        .isEqualTo(200);
    assertThat(
            internal("POST", "/tenants/fence/workspaces/ws/fencing", "{\"token\":3}").statusCode())
        .isEqualTo(409);

    executor.publish(finished("fence", "ws", "run-old", "act-1", "create", "succeeded", 5));

    StateRecorded data =
        EventCodec.data(awaitRecorded("fence", "act-1", 1).get(0), StateRecorded.class);
    assertThat(data.outcome()).isEqualTo("rejected");
    assertThat(data.serial()).isZero();
    assertThat(data.error()).contains("older than the newest token 7");
    assertThat(get("/api/v1/workspaces/ws/state", token).statusCode()).isEqualTo(204);

    executor.publish(finished("fence", "ws", "run-new", "act-1", "create", "succeeded", 7));
    StateRecorded accepted =
        EventCodec.data(
            awaitRecorded("fence", "act-1", 2).stream()
                .filter(e -> "run-new".equals(e.runid()))
                .findFirst()
                .orElseThrow(),
            StateRecorded.class);
    assertThat(accepted.outcome()).isEqualTo("succeeded");
    assertThat(accepted.serial()).isEqualTo(1);
  }

  @Test
  void aPushedDocumentIsPulledBackByteForByteWithItsLengthAndMd5() throws Exception {
    String token = tenantWithToken("pull");
    byte[] pretty;
    try (var in = getClass().getResourceAsStream("/terraform/realistic-v4.tfstate")) {
      pretty = in.readAllBytes();
    }
    // larger than two slices (4 MiB each), so the response is written in several pieces
    byte[] body = java.util.Arrays.copyOf(pretty, pretty.length + (9 << 20));
    java.util.Arrays.fill(body, pretty.length, body.length, (byte) ' ');
    dev.stagecraft.state.adapter.db.StateStore store =
        server.getApplicationContext().getBean(dev.stagecraft.state.adapter.db.StateStore.class);
    try (var upload =
        dev.stagecraft.state.adapter.document.SpooledDocument.receive(
            new java.io.ByteArrayInputStream(body), null, Long.MAX_VALUE, dir)) {
      assertThat(store.pushDocument("pull", "big", 0, "user:test", upload, false).accepted())
          .isTrue();
    }
    String md5 =
        java.util.Base64.getEncoder()
            .encodeToString(java.security.MessageDigest.getInstance("MD5").digest(body));
    String basic =
        "Basic "
            + java.util.Base64.getEncoder()
                .encodeToString(("stagecraft:" + token).getBytes(StandardCharsets.UTF_8));

    for (HttpRequest request :
        List.of(
            HttpRequest.newBuilder(uri("/tf/v1/workspaces/big/state"))
                .header("Authorization", basic)
                .build(),
            HttpRequest.newBuilder(uri("/api/v1/workspaces/big/state"))
                .header("Authorization", "Bearer " + token)
                .build())) {
      HttpResponse<byte[]> pulled = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      assertThat(pulled.statusCode()).isEqualTo(200);
      assertThat(pulled.headers().firstValue("Content-MD5")).contains(md5);
      assertThat(pulled.headers().firstValueAsLong("Content-Length")).hasValue(body.length);
      assertThat(pulled.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
      assertThat(pulled.body()).as("the bytes as pushed").isEqualTo(body);
    }
  }

  @Test
  void aTenantCannotReadAnotherTenantsWorkspace() throws Exception {
    tenantWithToken("alpha");
    String betaToken = tenantWithToken("beta");
    executor.publish(finished("alpha", "secret-ws", "run-1", "act-1", "create", "succeeded", 1));
    awaitRecorded("alpha", "act-1", 1);

    HttpResponse<String> state = get("/api/v1/workspaces/secret-ws/state", betaToken);
    assertThat(state.statusCode()).isEqualTo(204);
    assertThat(state.body()).isEmpty();
    HttpResponse<String> events = get("/api/v1/workspaces/secret-ws/state/events", betaToken);
    assertThat(events.body()).isEqualTo("[]");
  }

  @Test
  void requestsWithoutValidTokensGet401ProblemJson() throws Exception {
    HttpResponse<String> none = get("/api/v1/workspaces/ws/state", null);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("content-type")).hasValue("application/problem+json");
    JsonNode problem = EventCodec.mapper().readTree(none.body());
    assertThat(problem.get("status").asInt()).isEqualTo(401);
    assertThat(problem.get("title").asText()).isEqualTo("Unauthorized");
    assertThat(problem.has("type")).isTrue();
    assertThat(problem.has("detail")).isTrue();
    assertThat(get("/api/v1/workspaces/ws/state", "sc_not-a-token").statusCode()).isEqualTo(401);
    HttpResponse<String> internal =
        http.send(
            HttpRequest.newBuilder(uri("/internal/v1/tenants"))
                .header("Authorization", "Bearer wrong")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"x\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(internal.statusCode()).isEqualTo(401);
    String token = tenantWithToken("verify");
    HttpResponse<String> verified =
        internal("POST", "/auth/verify", "{\"token\":\"" + token + "\"}");
    assertThat(EventCodec.mapper().readTree(verified.body()))
        .isEqualTo(EventCodec.mapper().readTree("{\"tenant\":\"verify\",\"role\":\"admin\"}"));
    assertThat(internal("POST", "/auth/verify", "{\"token\":\"sc_nope\"}").statusCode())
        .isEqualTo(401);
  }

  @Test
  void emptyWorkspaceHasSerialZeroInternallyAndNoContentPublicly() throws Exception {
    String token = tenantWithToken("empty");
    JsonNode v4 =
        EventCodec.mapper()
            .readTree(internal("GET", "/tenants/empty/workspaces/none/state", null).body());
    assertThat(v4.get("serial").asLong()).isZero();
    assertThat(v4.get("resources")).isEmpty();
    assertThat(get("/api/v1/workspaces/none/state", token).statusCode()).isEqualTo(204);
  }

  @Test
  void ignoresOtherActionEventTypes() throws Exception {
    tenantWithToken("logs");
    executor.publish(
        executorCodec.wrap(
            "logs",
            "ws",
            "run-1",
            1,
            APP,
            new ActionLog("run-1", "act-1", APP, 1, "stdout", "hello")));
    executor.publish(finished("logs", "ws", "run-1", "act-2", "create", "succeeded", 1));
    assertThat(awaitRecorded("logs", "act-2", 1)).hasSize(1);
    assertThat(recorded)
        .noneMatch(e -> "logs".equals(e.tenant()) && e.data().toString().contains("act-1"));
  }

  @Test
  void storedHistoryIsAppendOnly() throws Exception {
    tenantWithToken("ao");
    executor.publish(finished("ao", "ws", "run-1", "act-1", "create", "succeeded", 1));
    awaitRecorded("ao", "act-1", 1);

    try (Connection c =
            DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
        Statement s = c.createStatement()) {
      assertThatThrownBy(
              () ->
                  s.executeUpdate("UPDATE state.state_events SET actor = 'x' WHERE tenant = 'ao'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("append-only");
      assertThatThrownBy(
              () -> s.executeUpdate("DELETE FROM state.state_events WHERE tenant = 'ao'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> s.executeUpdate("TRUNCATE state.state_events"))
          .isInstanceOf(SQLException.class);
      try (ResultSet rs =
          s.executeQuery("SELECT count(*) FROM state.state_events WHERE tenant = 'ao'")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
    }
  }

  @Test
  void taintAndUntaintChangeOnlyTheMarkUnderTheFencingToken() throws Exception {
    String token = tenantWithToken("taint");
    executor.publish(finished("taint", "ws", "run-1", "act-1", "create", "succeeded", 1));
    awaitRecorded("taint", "act-1", 1);
    assertThat(
            internal("POST", "/tenants/taint/workspaces/ws/fencing", "{\"token\":3}").statusCode())
        .isEqualTo(200);
    String path = "/tenants/taint/workspaces/ws/instances/taint";

    HttpResponse<String> tainted = internal("POST", path, taintBody(APP, true, 3));
    assertThat(tainted.statusCode()).as(tainted.body()).isEqualTo(200);
    assertThat(EventCodec.mapper().readTree(tainted.body()).get("serial").asLong()).isEqualTo(2);
    JsonNode v4 = EventCodec.mapper().readTree(get("/api/v1/workspaces/ws/state", token).body());
    JsonNode instance = v4.get("resources").get(0).get("instances").get(0);
    assertThat(instance.get("status").asText()).isEqualTo("tainted");
    assertThat(instance.get("attributes").get("host").asText()).isEqualTo("10.0.0.1");
    assertThat(v4.get("serial").asLong()).isEqualTo(2);
    JsonNode history =
        EventCodec.mapper().readTree(get("/api/v1/workspaces/ws/state/events", token).body());
    // the advance to token 3 is in the history too (ADR 0052), then the mark
    assertThat(history.get(2).get("type").asText()).isEqualTo("fencing_advanced");
    assertThat(history.get(3).get("type").asText()).isEqualTo("instance_marked_tainted");
    assertThat(history.get(3).get("actor").asText()).isEqualTo("deployer@taint");
    assertThat(history.get(3).get("address").asText()).isEqualTo(APP);

    // tainting again succeeds and writes nothing, as Terraform's taint does
    HttpResponse<String> again = internal("POST", path, taintBody(APP, true, 3));
    assertThat(EventCodec.mapper().readTree(again.body()).get("serial").asLong()).isEqualTo(2);

    HttpResponse<String> untainted = internal("POST", path, taintBody(APP, false, 3));
    assertThat(untainted.statusCode()).as(untainted.body()).isEqualTo(200);
    assertThat(EventCodec.mapper().readTree(untainted.body()).get("serial").asLong()).isEqualTo(3);
    JsonNode after =
        EventCodec.mapper()
            .readTree(internal("GET", "/tenants/taint/workspaces/ws/state", null).body());
    assertThat(after.get("resources").get(0).get("instances").get(0).has("status")).isFalse();

    HttpResponse<String> notTainted = internal("POST", path, taintBody(APP, false, 3));
    assertThat(notTainted.statusCode()).isEqualTo(409);
    assertThat(notTainted.headers().firstValue("content-type"))
        .hasValue("application/problem+json");
    JsonNode problem = EventCodec.mapper().readTree(notTainted.body());
    assertThat(problem.get("type").asText()).endsWith("/not-tainted");
    assertThat(problem.get("detail").asText()).contains("is not currently tainted");

    HttpResponse<String> unknown =
        internal("POST", path, taintBody("stateful_provisioning.nope", true, 3));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(EventCodec.mapper().readTree(unknown.body()).get("detail").asText())
        .isEqualTo("No such resource instance: stateful_provisioning.nope");

    HttpResponse<String> stale = internal("POST", path, taintBody(APP, true, 2));
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(EventCodec.mapper().readTree(stale.body()).get("type").asText())
        .endsWith("/stale-fencing-token");

    assertThat(internal("POST", path, "{\"address\":\"" + APP + "\"}").statusCode()).isEqualTo(400);
    assertThat(internal("POST", path, taintBody("not an address", true, 3)).statusCode())
        .isEqualTo(400);
    assertThat(
            EventCodec.mapper()
                .readTree(get("/api/v1/workspaces/ws/state/events", token).body())
                .size())
        .as("refused requests append nothing")
        .isEqualTo(5); // lineage, create, fencing_advanced, taint, untaint
  }

  private static String taintBody(String address, boolean tainted, long fencingToken) {
    return EventCodec.toJson(
        Map.of(
            "address",
            address,
            "tainted",
            tainted,
            "fencingToken",
            fencingToken,
            "actor",
            "deployer@taint"));
  }

  @Test
  void recordsHostKeysLearnedOnFirstUseAndManagesKnownHostsPerTenant() throws Exception {
    String key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    String other =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBzJhYqN8yzL9w9rdQO6Sxb7L8mMLBkH3kUkO3W9JbgA";
    ActionFinished learned =
        new ActionFinished(
                "run-hk",
                "act-hk",
                APP,
                "stateful_provisioning",
                "create",
                "succeeded",
                null,
                null,
                Map.of("id", "i-1"),
                List.of(),
                1,
                "exec-1",
                false,
                false,
                List.of(
                    new dev.stagecraft.schemas.action.LearnedHostKey(
                        "10.0.0.9", 2222, key, "SHA256:ignored-recomputed")))
            .provenWith(mintCredential("hk", "prod", "run-hk", 1));
    executor.publish(executorCodec.wrap("hk", "prod", "run-hk", 3, APP, learned));
    awaitRecorded("hk", "act-hk", 1);

    JsonNode keys =
        EventCodec.mapper()
            .readTree(internal("GET", "/tenants/hk/workspaces/prod/host-keys", null).body())
            .get("keys");
    assertThat(keys).hasSize(1);
    assertThat(keys.get(0).get("host").asText()).isEqualTo("10.0.0.9");
    assertThat(keys.get(0).get("port").asInt()).isEqualTo(2222);
    assertThat(keys.get(0).get("publicKey").asText()).isEqualTo(key);
    assertThat(keys.get(0).get("fingerprint").asText())
        .startsWith("SHA256:")
        .isNotEqualTo("SHA256:ignored-recomputed");
    assertThat(keys.get(0).get("origin").asText())
        .isEqualTo("first use in workspace prod (run run-hk)");

    HttpResponse<String> added =
        internal(
            "POST",
            "/tenants/hk/known-hosts",
            "{\"host\":\"Jump.example\",\"publicKey\":\"" + other + " ops\",\"actor\":\"a\"}");
    assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
    assertThat(
            internal(
                    "POST",
                    "/tenants/hk/known-hosts",
                    "{\"host\":\"jump.example\",\"port\":22,\"publicKey\":\"" + other + "\"}")
                .statusCode())
        .isEqualTo(200);
    HttpResponse<String> bad =
        internal("POST", "/tenants/hk/known-hosts", "{\"host\":\"j\",\"publicKey\":\"nope\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("publicKey must be");
    assertThat(
            EventCodec.mapper()
                .readTree(internal("GET", "/tenants/hk/workspaces/prod/host-keys", null).body())
                .get("keys"))
        .hasSize(2);

    // another tenant sees nothing and removes nothing
    assertThat(internal("GET", "/tenants/other/workspaces/prod/host-keys", null).body())
        .isEqualTo("{\"keys\":[]}");
    assertThat(
            internal("DELETE", "/tenants/other/known-hosts?host=jump.example&port=22", null).body())
        .isEqualTo("{\"removed\":[]}");
    assertThat(
            internal(
                    "DELETE",
                    "/tenants/other/workspaces/prod/host-keys?host=10.0.0.9&port=2222",
                    null)
                .body())
        .isEqualTo("{\"removed\":[]}");

    assertThat(
            EventCodec.mapper()
                .readTree(
                    internal(
                            "DELETE",
                            "/tenants/hk/workspaces/prod/host-keys?host=10.0.0.9&port=2222&actor=me",
                            null)
                        .body())
                .get("removed"))
        .hasSize(1);
    assertThat(
            EventCodec.mapper()
                .readTree(internal("GET", "/tenants/hk/workspaces/prod/host-keys", null).body())
                .get("keys"))
        .singleElement()
        .satisfies(k -> assertThat(k.get("source").asText()).isEqualTo("known-hosts"));
  }

  // --- fixtures -----------------------------------------------------------------------------

  @Test
  void runCredentialWorksOnlyWhileItsRunIsActiveAndOnlyForItsWorkspace() throws Exception {
    tenantWithToken("cred");
    tenantWithToken("other");
    assertThat(internal("POST", "/tenants/cred/workspaces/x/fencing", "{\"token\":1}").statusCode())
        .isEqualTo(200);
    String credential = mintCredential("cred", "x", "run-c", 1);
    assertThat(credential).startsWith("scr_");
    String forY = mintCredential("cred", "y", "run-y", 1);

    // during the run: reads its own workspace, nothing else
    assertThat(readStateWith("cred", "x", credential).statusCode()).isEqualTo(200);
    assertThat(readStateWith("cred", "y", credential).statusCode()).isEqualTo(401);
    assertThat(readStateWith("other", "x", credential).statusCode()).isEqualTo(401);
    executor.publish(provenFinished("cred", "x", "run-c", "act-1", 1, credential));
    assertThat(EventCodec.data(awaitRecorded("cred", "act-1", 1).get(0), StateRecorded.class))
        .extracting(StateRecorded::outcome, StateRecorded::serial)
        .containsExactly("succeeded", 1L);
    // a proof made with workspace y's credential does not record a result of run-c in x
    executor.publish(provenFinished("cred", "x", "run-c", "act-2", 1, forY));
    StateRecorded foreign =
        EventCodec.data(awaitRecorded("cred", "act-2", 1).get(0), StateRecorded.class);
    assertThat(foreign.outcome()).isEqualTo("rejected");
    assertThat(foreign.error()).contains("does not match");

    // the run ends: the planner revokes; the credential is refused at once
    assertThat(
            internal("DELETE", "/tenants/cred/workspaces/x/run-credentials/run-c", null)
                .statusCode())
        .isEqualTo(200);
    HttpResponse<String> after = readStateWith("cred", "x", credential);
    assertThat(after.statusCode()).isEqualTo(401);
    assertThat(after.body()).doesNotContain(credential);
    executor.publish(provenFinished("cred", "x", "run-c", "act-3", 1, credential));
    StateRecorded late =
        EventCodec.data(awaitRecorded("cred", "act-3", 1).get(0), StateRecorded.class);
    assertThat(late.outcome()).isEqualTo("rejected");
    assertThat(late.error()).contains("revoked");
    assertThat(late.serial()).isEqualTo(1);
    // a revoked run gets no new credential
    assertThat(
            internal(
                    "POST",
                    "/tenants/cred/workspaces/x/run-credentials",
                    "{\"runId\":\"run-c\",\"fencingToken\":1}")
                .statusCode())
        .isEqualTo(409);

    // a newer lock holder supersedes a credential that was never revoked
    assertThat(readStateWith("cred", "y", forY).statusCode()).isEqualTo(200);
    assertThat(internal("POST", "/tenants/cred/workspaces/y/fencing", "{\"token\":2}").statusCode())
        .isEqualTo(200);
    assertThat(readStateWith("cred", "y", forY).statusCode()).isEqualTo(401);
  }

  @Test
  void openingARunRegistersItsTokenMintsItsCredentialAndReadsHostKeysAndStateInOneCall()
      throws Exception {
    tenantWithToken("open");
    executor.publish(finished("open", "ws", "run-1", "act-1", "create", "succeeded", 1));
    awaitRecorded("open", "act-1", 1);
    String key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    assertThat(
            internal(
                    "POST",
                    "/tenants/open/known-hosts",
                    "{\"host\":\"jump.example\",\"publicKey\":\"" + key + "\",\"actor\":\"a\"}")
                .statusCode())
        .isEqualTo(201);

    HttpResponse<String> opened =
        internal(
            "POST",
            "/tenants/open/workspaces/ws/run-openings",
            "{\"runId\":\"run-2\",\"fencingToken\":2}");

    assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
    JsonNode json = EventCodec.mapper().readTree(opened.body());
    String credential = json.get("credential").asText();
    assertThat(credential).startsWith("scr_");
    assertThat(json.get("serial").asLong()).isEqualTo(1);
    assertThat(json.get("hostKeys"))
        .singleElement()
        .satisfies(k -> assertThat(k.get("host").asText()).isEqualTo("jump.example"));
    JsonNode state = json.get("state");
    assertThat(state.get("serial").asLong()).isEqualTo(1);
    assertThat(state.get("resources").get(0).get("name").asText()).isEqualTo("app");
    assertThat(state)
        .isEqualTo(
            EventCodec.mapper()
                .readTree(internal("GET", "/tenants/open/workspaces/ws/state", null).body()));
    // the credential is the run's: it reads the state; the token is the workspace's newest
    assertThat(readStateWith("open", "ws", credential).statusCode()).isEqualTo(200);
    assertThat(
            internal("POST", "/tenants/open/workspaces/ws/fencing", "{\"token\":1}").statusCode())
        .isEqualTo(409);

    // a stale token opens nothing and mints nothing
    HttpResponse<String> stale =
        internal(
            "POST",
            "/tenants/open/workspaces/ws/run-openings",
            "{\"runId\":\"run-old\",\"fencingToken\":1}");
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(stale.body()).contains("older than the newest token 2");
    assertThat(
            internal("DELETE", "/tenants/open/workspaces/ws/run-credentials/run-old", null)
                .statusCode())
        .isEqualTo(404);
    // a run that already ended (its credential revoked) is not opened again
    assertThat(
            internal("DELETE", "/tenants/open/workspaces/ws/run-credentials/run-2", null)
                .statusCode())
        .isEqualTo(200);
    HttpResponse<String> ended =
        internal(
            "POST",
            "/tenants/open/workspaces/ws/run-openings",
            "{\"runId\":\"run-2\",\"fencingToken\":2}");
    assertThat(ended.statusCode()).isEqualTo(409);
    assertThat(ended.body()).contains("already ended").doesNotContain("scr_");
    // bad input and a wrong token: nothing written
    assertThat(
            internal(
                    "POST",
                    "/tenants/open/workspaces/ws/run-openings",
                    "{\"runId\":\"run-3\",\"fencingToken\":-1}")
                .statusCode())
        .isEqualTo(400);
    HttpResponse<String> unauthorized =
        http.send(
            HttpRequest.newBuilder(uri("/internal/v1/tenants/open/workspaces/ws/run-openings"))
                .header("Authorization", "Bearer nope")
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString("{\"runId\":\"run-3\",\"fencingToken\":3}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(unauthorized.statusCode()).isEqualTo(401);
    assertThat(
            internal("POST", "/tenants/open/workspaces/ws/fencing", "{\"token\":2}").statusCode())
        .isEqualTo(200);
  }

  /**
   * Two planners can open the same run at the same fencing token: the one that adopted the run, and
   * the one it was adopted from, waking from a pause before it notices it lost its instance lease
   * (both ask the lock service as the run). The second opening must not take the state away from
   * the first: results proven with either credential are recorded, and the run's end revokes both.
   */
  @Test
  void openingARunAgainKeepsTheCredentialOfTheFirstOpeningActive() throws Exception {
    tenantWithToken("twice");
    String body = "{\"runId\":\"run-t\",\"fencingToken\":4}";
    HttpResponse<String> first =
        internal("POST", "/tenants/twice/workspaces/ws/run-openings", body);
    HttpResponse<String> second =
        internal("POST", "/tenants/twice/workspaces/ws/run-openings", body);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    assertThat(second.statusCode()).as(second.body()).isEqualTo(201);
    String adopter = EventCodec.mapper().readTree(first.body()).get("credential").asText();
    String stale = EventCodec.mapper().readTree(second.body()).get("credential").asText();
    String retried = mintCredential("twice", "ws", "run-t", 4);
    assertThat(Set.of(adopter, stale, retried)).hasSize(3);

    executor.publish(provenFinished("twice", "ws", "run-t", "act-1", 4, adopter));
    assertThat(EventCodec.data(awaitRecorded("twice", "act-1", 1).get(0), StateRecorded.class))
        .extracting(StateRecorded::outcome, StateRecorded::serial)
        .containsExactly("succeeded", 1L);
    executor.publish(provenFinished("twice", "ws", "run-t", "act-2", 4, stale));
    assertThat(EventCodec.data(awaitRecorded("twice", "act-2", 1).get(0), StateRecorded.class))
        .extracting(StateRecorded::outcome)
        .isEqualTo("succeeded");
    assertThat(readStateWith("twice", "ws", adopter).statusCode()).isEqualTo(200);
    assertThat(readStateWith("twice", "ws", retried).statusCode()).isEqualTo(200);

    // the run ends: every credential it was given stops working, and it opens no more
    assertThat(
            internal("DELETE", "/tenants/twice/workspaces/ws/run-credentials/run-t", null)
                .statusCode())
        .isEqualTo(200);
    for (String c : List.of(adopter, stale, retried)) {
      assertThat(readStateWith("twice", "ws", c).statusCode()).isEqualTo(401);
    }
    executor.publish(provenFinished("twice", "ws", "run-t", "act-3", 4, adopter));
    StateRecorded late =
        EventCodec.data(awaitRecorded("twice", "act-3", 1).get(0), StateRecorded.class);
    assertThat(late.outcome()).isEqualTo("rejected");
    assertThat(late.error()).contains("revoked");
    assertThat(internal("POST", "/tenants/twice/workspaces/ws/run-openings", body).statusCode())
        .isEqualTo(409);
    assertThat(mintCredential("twice", "ws", "run-t", 4)).isNull();
  }

  @Test
  void resultWithoutRunProofIsRejected() throws Exception {
    tenantWithToken("noproof");
    mintCredential("noproof", "ws", "run-1", 1);
    executor.publish(
        executorCodec.wrap(
            "noproof",
            "ws",
            "run-1",
            3,
            APP,
            new ActionFinished(
                "run-1",
                "act-1",
                APP,
                "stateful_provisioning",
                "create",
                "succeeded",
                null,
                null,
                Map.of("id", "i-1"),
                List.of(),
                1,
                "exec-1")));
    StateRecorded data =
        EventCodec.data(awaitRecorded("noproof", "act-1", 1).get(0), StateRecorded.class);
    assertThat(data.outcome()).isEqualTo("rejected");
    assertThat(data.error()).contains("no run proof");
  }

  private HttpResponse<String> readStateWith(String tenant, String workspace, String credential)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                uri("/internal/v1/tenants/" + tenant + "/workspaces/" + workspace + "/state"))
            .header("Authorization", "Bearer " + credential)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Mints the run's state credential as the planner does; null when the state service refuses. */
  private String mintCredential(String tenant, String workspace, String runId, long fencingToken)
      throws Exception {
    HttpResponse<String> r =
        internal(
            "POST",
            "/tenants/" + tenant + "/workspaces/" + workspace + "/run-credentials",
            "{\"runId\":\"" + runId + "\",\"fencingToken\":" + fencingToken + "}");
    if (r.statusCode() == 409) {
      return null;
    }
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return EventCodec.mapper().readTree(r.body()).get("credential").asText();
  }

  private EventEnvelope provenFinished(
      String tenant,
      String workspace,
      String runId,
      String actionId,
      long fencingToken,
      String credential) {
    EventEnvelope plain =
        finished(tenant, workspace, runId, actionId, "create", "succeeded", fencingToken, null);
    return executorCodec.wrap(
        tenant,
        workspace,
        runId,
        3,
        APP,
        EventCodec.data(plain, ActionFinished.class).provenWith(credential));
  }

  /** An executor's result, proven with a credential minted for the run now (as a planner would). */
  private EventEnvelope finished(
      String tenant,
      String workspace,
      String runId,
      String actionId,
      String action,
      String outcome,
      long fencingToken)
      throws Exception {
    return finished(
        tenant,
        workspace,
        runId,
        actionId,
        action,
        outcome,
        fencingToken,
        mintCredential(tenant, workspace, runId, fencingToken));
  }

  private EventEnvelope finished(
      String tenant,
      String workspace,
      String runId,
      String actionId,
      String action,
      String outcome,
      long fencingToken,
      String credential) {
    return executorCodec.wrap(
        tenant,
        workspace,
        runId,
        3,
        APP,
        new ActionFinished(
                runId,
                actionId,
                APP,
                "stateful_provisioning",
                action,
                outcome,
                null,
                null,
                Map.of("id", "i-1", "host", "10.0.0.1"),
                List.of("stateful_provisioning.db"),
                fencingToken,
                "exec-1")
            .provenWith(credential));
  }

  /** Waits until at least {@code count} state.recorded events for the action arrived. */
  private List<EventEnvelope> awaitRecorded(String tenant, String actionId, int count) {
    List<EventEnvelope> matching = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (ConsumerRecord<String, byte[]> r : stateEvents.poll(Duration.ofMillis(100))) {
                recorded.add(EventCodec.decode(r.value()));
              }
              matching.clear();
              for (EventEnvelope e : recorded) {
                if (tenant.equals(e.tenant())
                    && actionId.equals(EventCodec.data(e, StateRecorded.class).actionId())) {
                  matching.add(e);
                }
              }
              assertThat(matching).hasSizeGreaterThanOrEqualTo(count);
            });
    return matching;
  }

  private String tenantWithToken(String tenant) throws Exception {
    assertThat(internal("POST", "/tenants", "{\"name\":\"" + tenant + "\"}").statusCode())
        .isEqualTo(200);
    HttpResponse<String> created =
        internal(
            "POST", "/tenants/" + tenant + "/tokens", "{\"role\":\"admin\",\"description\":\"t\"}");
    assertThat(created.statusCode()).isEqualTo(201);
    return EventCodec.mapper().readTree(created.body()).get("token").asText();
  }

  private HttpResponse<String> internal(String method, String path, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri("/internal/v1" + path))
            .header("Authorization", "Bearer " + SERVICE_TOKEN)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getPort() + path);
  }
}
