package dev.stagecraft.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.devstack.EmbeddedKafka;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two lock-service instances on one real PostgreSQL: waiting, hand-over, expiry, and that the
 * database (not the JVM) keeps a lock from being granted twice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockServiceIntegrationTest {
  /** The lock routes' main caller's token. */
  private static final String SERVICE_TOKEN = TestTokens.PLANNER;

  /** The expiry sweep interval of both instances (the documented default). */
  private static final Duration SWEEP_INTERVAL = Duration.ofMillis(250);

  private Path dir;
  private EmbeddedPostgresServer postgres;
  private EmbeddedKafka kafka;
  private EmbeddedServer first;
  private EmbeddedServer second;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("lock-it");
    postgres = EmbeddedPostgresServer.start(dir.resolve("pg").resolve("data"), 0);
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(Topics.LOCK_EVENTS, 1, (short) 1))).all().get();
    }
    first = startInstance("lock-1");
    second = startInstance("lock-2");
  }

  private EmbeddedServer startInstance(String id) {
    return ApplicationContext.run(
        EmbeddedServer.class,
        Map.of(
            "stagecraft.kafka-bootstrap",
            kafka.bootstrapServers(),
            "stagecraft.lock.sweep-interval",
            SWEEP_INTERVAL.toMillis() + "ms",
            "micronaut.server.port",
            -1,
            "stagecraft.db.url",
            postgres.jdbcUrl(),
            "stagecraft.db.user",
            postgres.user(),
            "stagecraft.db.password",
            postgres.password(),
            "stagecraft.service-tokens.planner",
            TestTokens.PLANNER,
            "stagecraft.service-tokens.state",
            TestTokens.STATE,
            "stagecraft.instance-id",
            id));
  }

  @AfterAll
  void stop() throws Exception {
    for (EmbeddedServer server : new EmbeddedServer[] {first, second}) {
      if (server != null) {
        server.getApplicationContext().close();
      }
    }
    if (postgres != null) {
      postgres.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void secondHolderWaitsAndGetsTheLockRightAfterTheFirstReleases() throws Exception {
    JsonNode a = json(acquire(first, "ws-handover", "run-a", 30, 0));
    long tokenA = a.get("fencingToken").asLong();

    CompletableFuture<HttpResponse<String>> waiting =
        acquireAsync(second, "ws-handover", "run-b", 30, 20);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(json(show(first, "ws-handover")).get("queue").toString())
                    .isEqualTo("[\"run-b\"]"));
    assertThat(waiting).isNotDone();

    assertThat(release(first, "ws-handover", a.get("lockId").asText()).statusCode()).isEqualTo(200);

    HttpResponse<String> granted = waiting.get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(granted.statusCode()).isEqualTo(200);
    JsonNode b = json(granted);
    assertThat(b.get("fencingToken").asLong()).isGreaterThan(tokenA);
    JsonNode view = json(show(second, "ws-handover"));
    assertThat(view.get("holder").asText()).isEqualTo("run-b");
    assertThat(view.get("queue")).isEmpty();
    assertThat(release(first, "ws-handover", a.get("lockId").asText()).statusCode())
        .isEqualTo(200); // idempotent
  }

  /**
   * The save and the {@code COMMIT} travel in one message: when the save fails the commit must not
   * run, so a refused write leaves neither the lease nor a used fencing token behind.
   */
  @Test
  void aCommandWhoseWriteTheDatabaseRefusesCommitsNothing() throws Exception {
    JsonNode before = json(acquire(first, "ws-refused", "run-a", 30, 0));
    assertThat(release(first, "ws-refused", before.get("lockId").asText()).statusCode())
        .isEqualTo(200);
    try (java.sql.Connection c =
            java.sql.DriverManager.getConnection(
                postgres.jdbcUrl(), postgres.user(), postgres.password());
        java.sql.Statement s = c.createStatement()) {
      s.execute(
          "CREATE FUNCTION lock.refuse_test_holder() RETURNS trigger LANGUAGE plpgsql AS $$"
              + " BEGIN IF NEW.holder = 'refused-by-db' THEN"
              + " RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$");
      s.execute(
          "CREATE TRIGGER refuse_test_holder BEFORE INSERT ON lock.lock_events"
              + " FOR EACH ROW EXECUTE FUNCTION lock.refuse_test_holder()");
      try {
        assertThat(acquire(first, "ws-refused", "refused-by-db", 30, 0).statusCode())
            .isEqualTo(500);
      } finally {
        s.execute("DROP TRIGGER refuse_test_holder ON lock.lock_events");
        s.execute("DROP FUNCTION lock.refuse_test_holder()");
      }
    }
    assertThat(json(show(second, "ws-refused")).hasNonNull("holder")).isFalse();
    JsonNode after = json(acquire(second, "ws-refused", "run-b", 30, 0));
    assertThat(after.get("fencingToken").asLong())
        .isEqualTo(before.get("fencingToken").asLong() + 1);
  }

  @Test
  void anExpiredLeaseIsTakenOverAndItsHeartbeatIsRefused() throws Exception {
    JsonNode a = json(acquire(first, "ws-expiry", "run-a", 1, 0));

    HttpResponse<String> takeover =
        acquireAsync(second, "ws-expiry", "run-b", 30, 15)
            .get(15, java.util.concurrent.TimeUnit.SECONDS);

    assertThat(takeover.statusCode()).isEqualTo(200);
    assertThat(json(takeover).get("fencingToken").asLong())
        .isGreaterThan(a.get("fencingToken").asLong());
    HttpResponse<String> heartbeat = heartbeat(first, "ws-expiry", a.get("lockId").asText());
    assertThat(heartbeat.statusCode()).isEqualTo(410);
    assertThat(heartbeat.headers().firstValue("content-type")).hasValue("application/problem+json");
  }

  @Test
  void waitersThatTimeOutKeepTheirFifoPlace() throws Exception {
    JsonNode a = json(acquire(first, "ws-queue", "run-a", 30, 0));

    HttpResponse<String> b = acquire(first, "ws-queue", "run-b", 30, 0);
    HttpResponse<String> c = acquire(second, "ws-queue", "run-c", 30, 1);
    HttpResponse<String> bAgain = acquire(second, "ws-queue", "run-b", 30, 0);

    assertThat(b.statusCode()).isEqualTo(202);
    assertThat(json(b).get("position").asInt()).isEqualTo(1);
    assertThat(json(c).get("position").asInt()).isEqualTo(2);
    assertThat(json(c).get("queued").asBoolean()).isTrue();
    assertThat(json(bAgain).get("position").asInt()).isEqualTo(1);
    assertThat(heartbeat(first, "ws-queue", a.get("lockId").asText()).statusCode()).isEqualTo(200);

    release(first, "ws-queue", a.get("lockId").asText());
    assertThat(acquire(first, "ws-queue", "run-c", 30, 0).statusCode()).isEqualTo(202);
    assertThat(acquire(first, "ws-queue", "run-b", 30, 0).statusCode()).isEqualTo(200);
  }

  @Test
  void twoInstancesNeverGrantTheSameLockTwice() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      calls.add(acquireAsync(i % 2 == 0 ? first : second, "ws-race", "run-" + i, 30, 0));
    }
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      responses.add(call.get(30, java.util.concurrent.TimeUnit.SECONDS));
    }

    assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(1);
    assertThat(responses).filteredOn(r -> r.statusCode() == 202).hasSize(11);
    try (Connection c =
            DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FILTER (WHERE type = 'acquired'),"
                    + " count(*) FILTER (WHERE type = 'enqueued')"
                    + " FROM lock.lock_events WHERE workspace = 'ws-race'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
      assertThat(rs.getInt(2)).isEqualTo(11);
    }
  }

  @Test
  void rejectsCallsWithoutTheServiceTokenAndInvalidBodies() throws Exception {
    HttpResponse<String> anonymous =
        http.send(
            HttpRequest.newBuilder(uri(first, "/internal/v1/tenants/t/workspaces/w/lock")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(json(anonymous).get("status").asInt()).isEqualTo(401);

    HttpResponse<String> bad =
        send(first, "POST", "/tenants/t/workspaces/w/lock", "{\"leaseSeconds\":-1}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(json(bad).get("detail").asText()).contains("holder");
  }

  @Test
  void anExpiredLeaseIsReleasedWithoutAnyCallerAndPublishedAsAnEvent() throws Exception {
    JsonNode a = json(acquire(first, "ws-sweep", "run-silent", 1, 0));
    String lockId = a.get("lockId").asText();

    // nobody calls: only the sweep can record the expiry
    await().atMost(Duration.ofSeconds(10)).until(() -> auditTypes("ws-sweep").contains("expired"));
    try (Connection c = database();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM lock.locks WHERE workspace = 'ws-sweep'")) {
      rs.next();
      assertThat(rs.getInt(1)).as("the expired lock row is gone").isZero();
    }

    List<EventEnvelope> events =
        lockEvents(e -> lockId.equals(e.subject()), Duration.ofSeconds(20));
    assertThat(events).hasSize(1);
    EventEnvelope event = events.get(0);
    assertThat(event.type()).isEqualTo("dev.stagecraft.lock.lease-expired");
    assertThat(event.tenant()).isEqualTo("acme");
    assertThat(event.workspace()).isEqualTo("ws-sweep");
    assertThat(event.data().get("holder").asText()).isEqualTo("run-silent");
    assertThat(event.data().get("fencingToken").asLong()).isEqualTo(a.get("fencingToken").asLong());
    assertThat(new EventSchemaValidator().validate(new String(EventCodec.encode(event)))).isEmpty();
    assertThat(heartbeat(first, "ws-sweep", lockId).statusCode()).isEqualTo(410);
  }

  /**
   * The force-unlock goes to an instance whose broker is unreachable (nothing listens at its
   * bootstrap address) and whose own relay does not run during the test: it must still answer at
   * once (nothing is published on the request path), write the {@code force_released} audit row —
   * the outbox entry — in the release's transaction, and the event must then be published by a
   * relay that reaches the broker, with the stable id {@code lock-force-unlocked-<row id>}, the
   * lock id the caller named and {@code via}.
   */
  @Test
  void aForceUnlockIsPublishedFromTheOutboxWhenTheBrokerWasUnreachableAtThatMoment()
      throws Exception {
    int deadPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      deadPort = s.getLocalPort(); // closed again: connections to it are refused
    }
    EmbeddedServer cutOff =
        ApplicationContext.run(
            EmbeddedServer.class,
            Map.of(
                "stagecraft.kafka-bootstrap",
                "127.0.0.1:" + deadPort,
                "stagecraft.lock.sweep-interval",
                "1h",
                "micronaut.server.port",
                -1,
                "stagecraft.db.url",
                postgres.jdbcUrl(),
                "stagecraft.db.user",
                postgres.user(),
                "stagecraft.db.password",
                postgres.password(),
                "stagecraft.service-tokens.planner",
                TestTokens.PLANNER,
                "stagecraft.service-tokens.state",
                TestTokens.STATE,
                "stagecraft.instance-id",
                "lock-cut-off"));
    try {
      JsonNode held = json(acquire(cutOff, "ws-forced", "terraform:tf-lock-7", 60, 0));
      String lockId = held.get("lockId").asText();

      HttpResponse<String> badVia =
          send(
              cutOff,
              "POST",
              "/tenants/acme/workspaces/ws-forced/lock/" + lockId + "/force-release",
              "{\"actor\":\"api-token:ops\",\"reason\":\"x\",\"via\":\"carrier-pigeon\"}");
      assertThat(badVia.statusCode()).isEqualTo(400);
      assertThat(badVia.body()).contains("via");
      assertThat(auditTypes("ws-forced")).doesNotContain("force_released");

      HttpResponse<String> forced =
          http.send(
              HttpRequest.newBuilder(
                      uri(
                          cutOff,
                          "/internal/v1/tenants/acme/workspaces/ws-forced/lock/"
                              + lockId
                              + "/force-release"))
                  .timeout(Duration.ofSeconds(10))
                  .header("Authorization", "Bearer " + SERVICE_TOKEN)
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"actor\":\"api-token:ops\",\"reason\":\"ci runner died\","
                              + "\"via\":\"terraform-http-backend\","
                              + "\"clientLockId\":\"tf-lock-7\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);

      long rowId;
      try (Connection c = database();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT id, (SELECT count(*) FROM lock.locks WHERE tenant = 'acme'"
                      + " AND workspace = 'ws-forced') FROM lock.lock_events"
                      + " WHERE tenant = 'acme' AND workspace = 'ws-forced'"
                      + " AND type = 'force_released'")) {
        assertThat(rs.next()).as("the outbox row of the force release").isTrue();
        rowId = rs.getLong(1);
        assertThat(rs.getLong(2)).as("released in the same transaction").isZero();
      }

      List<EventEnvelope> events =
          lockEvents(
              e ->
                  e.type().equals("dev.stagecraft.lock.force-unlocked")
                      && "ws-forced".equals(e.workspace()),
              Duration.ofSeconds(20));
      assertThat(events).hasSize(1);
      EventEnvelope event = events.get(0);
      assertThat(event.id()).isEqualTo("lock-force-unlocked-" + rowId);
      assertThat(event.tenant()).isEqualTo("acme");
      assertThat(event.data().get("lockId").asText()).isEqualTo("tf-lock-7");
      assertThat(event.data().get("holder").asText()).isEqualTo("terraform:tf-lock-7");
      assertThat(event.data().get("fencingToken").asLong())
          .isEqualTo(held.get("fencingToken").asLong());
      assertThat(event.data().get("actor").asText()).isEqualTo("api-token:ops");
      assertThat(event.data().get("reason").asText()).isEqualTo("ci runner died");
      assertThat(event.data().get("via").asText()).isEqualTo("terraform-http-backend");
      assertThat(new EventSchemaValidator().validate(new String(EventCodec.encode(event))))
          .isEmpty();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                try (Connection c = database();
                    Statement st = c.createStatement();
                    ResultSet rs =
                        st.executeQuery(
                            "SELECT published_at IS NOT NULL FROM lock.lock_events WHERE id = "
                                + rowId)) {
                  return rs.next() && rs.getBoolean(1);
                }
              });
    } finally {
      cutOff.getApplicationContext().close();
    }
  }

  /**
   * A separate process (bash + curl) takes the lock with a 2 s lease and heartbeats every 0.5 s; a
   * run queues behind it; the process group is killed with SIGKILL. The queued run must be granted
   * within lease + 1 s of the kill, by the server's own timestamp of the grant.
   */
  @Test
  void killingTheHolderWithSigkillFreesTheLockWithinLeasePlusOneSecond() throws Exception {
    int leaseSeconds = 2;
    String ws = "ws-kill9";
    String base = "http://127.0.0.1:" + second.getPort() + "/internal/v1/tenants/acme/workspaces/";
    String auth = "Authorization: Bearer " + SERVICE_TOKEN;
    String script =
        String.join(
            "\n",
            "set -e",
            "id=$(curl -sS -X POST -H '"
                + auth
                + "' -H 'Content-Type: application/json'"
                + " -d '{\"holder\":\"crashy\",\"leaseSeconds\":"
                + leaseSeconds
                + "}'"
                + " "
                + base
                + ws
                + "/lock | sed -E 's/.*\"lockId\":\"([^\"]+)\".*/\\1/')",
            "echo \"$id\"",
            "while true; do",
            "  curl -sS -o /dev/null -X POST -H '"
                + auth
                + "' "
                + base
                + ws
                + "/lock/$id/heartbeat",
            "  sleep 0.5",
            "done");
    Process holder = new ProcessBuilder("setsid", "bash", "-c", script).start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> firstLine = CompletableFuture.supplyAsync(() -> readLine(out));
      String lockId = firstLine.get(20, TimeUnit.SECONDS);
      assertThat(json(show(first, ws)).get("lockId").asText()).isEqualTo(lockId);
      Instant firstExpiry = Instant.parse(json(show(first, ws)).get("leaseExpiresAt").asText());

      CompletableFuture<HttpResponse<String>> queued =
          acquireAsync(first, ws, "run-queued", 30, 30);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> json(show(first, ws)).get("queue").toString().equals("[\"run-queued\"]"));
      // the holder is alive: its heartbeats carry the lease past its first expiry
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Instant.now().isAfter(firstExpiry.plusMillis(200)));
      assertThat(json(show(first, ws)).get("lockId").asText()).isEqualTo(lockId);
      assertThat(queued).isNotDone();

      Instant killedAt = Instant.now();
      Process kill =
          new ProcessBuilder("kill", "-KILL", "--", "-" + holder.pid()).inheritIO().start();
      assertThat(kill.waitFor()).isZero();
      assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();

      HttpResponse<String> granted = queued.get(30, TimeUnit.SECONDS);
      assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
      Instant grantedAt = auditTime(ws, "acquired", "run-queued");
      Duration killToGrant = Duration.between(killedAt, grantedAt);
      System.out.printf(
          "kill -9 of the lock holder -> queued run granted: %d ms (lease %d s)%n",
          killToGrant.toMillis(), leaseSeconds);
      assertThat(killToGrant)
          .as("kill -9 of the holder to the queued run's grant (server time)")
          .isLessThanOrEqualTo(Duration.ofSeconds(leaseSeconds + 1));
      assertThat(auditTypes(ws)).containsSubsequence("acquired", "enqueued", "expired", "acquired");
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void aNewerRequestWithTheSameCoalescingKeyReplacesTheWaitingOne() throws Exception {
    JsonNode running = json(acquire(first, "ws-coalesce", "run-now", 30, 0));
    CompletableFuture<HttpResponse<String>> older =
        http.sendAsync(
            request(
                first,
                "POST",
                "/tenants/acme/workspaces/ws-coalesce/lock",
                "{\"holder\":\"run-r1\",\"waitSeconds\":30,\"coalescingKey\":\"apply:prod\"}"),
            HttpResponse.BodyHandlers.ofString());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> json(show(first, "ws-coalesce")).get("queue").toString().equals("[\"run-r1\"]"));
    acquire(first, "ws-coalesce", "run-other", 30, 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                json(show(first, "ws-coalesce"))
                    .get("queue")
                    .toString()
                    .equals("[\"run-r1\",\"run-other\"]"));

    HttpResponse<String> newer =
        send(
            second,
            "POST",
            "/tenants/acme/workspaces/ws-coalesce/lock",
            "{\"holder\":\"run-r2\",\"coalescingKey\":\"apply:prod\"}");

    assertThat(newer.statusCode()).isEqualTo(202);
    assertThat(json(newer).get("position").asInt()).isEqualTo(1);
    HttpResponse<String> replaced = older.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(409);
    assertThat(json(replaced).get("detail").asText())
        .contains("replaced by a newer request from 'run-r2'", "apply:prod");
    assertThat(json(show(first, "ws-coalesce")).get("queue").toString())
        .isEqualTo("[\"run-r2\",\"run-other\"]");
    assertThat(auditTypes("ws-coalesce")).contains("superseded");
    release(first, "ws-coalesce", running.get("lockId").asText());
    assertThat(acquire(first, "ws-coalesce", "run-r2", 30, 5).statusCode()).isEqualTo(200);
  }

  @Test
  void severalWorkspacesAreLockedAllOrNone() throws Exception {
    JsonNode held = json(acquire(first, "multi-b", "someone", 30, 0));

    HttpResponse<String> refused =
        send(
            first,
            "POST",
            "/tenants/acme/locks",
            "{\"holder\":\"multi\",\"workspaces\":[\"multi-c\",\"multi-a\",\"multi-b\"]}");
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(423);
    assertThat(json(refused).get("blocked").get(0).get("workspace").asText()).isEqualTo("multi-b");
    assertThat(json(show(first, "multi-a")).get("holder").isNull()).isTrue();
    assertThat(json(show(first, "multi-c")).get("holder").isNull()).isTrue();

    CompletableFuture<HttpResponse<String>> waiting =
        http.sendAsync(
            request(
                second,
                "POST",
                "/tenants/acme/locks",
                "{\"holder\":\"multi\",\"workspaces\":[\"multi-c\",\"multi-a\",\"multi-b\"],"
                    + "\"waitSeconds\":20}"),
            HttpResponse.BodyHandlers.ofString());
    release(first, "multi-b", held.get("lockId").asText());
    HttpResponse<String> granted = waiting.get(20, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
    assertThat(json(granted).get("locks").findValuesAsText("workspace"))
        .containsExactly("multi-a", "multi-b", "multi-c");
    for (String ws : List.of("multi-a", "multi-b", "multi-c")) {
      assertThat(json(show(first, ws)).get("holder").asText()).isEqualTo("multi");
    }
  }

  /**
   * Two holders repeatedly ask for overlapping sets ({a,b,c} and {c,b,d}, listed in different
   * orders) on two instances: no request fails (a PostgreSQL deadlock would be a 500), each answer
   * is all (200) or nothing (423), and nobody ever holds a part of its set.
   */
  @Test
  void overlappingMultiWorkspaceRequestsNeverDeadlock() throws Exception {
    List<List<String>> sets =
        List.of(List.of("ov-c", "ov-a", "ov-b"), List.of("ov-d", "ov-b", "ov-c"));
    List<CompletableFuture<List<Integer>>> runs = new ArrayList<>();
    for (int h = 0; h < 2; h++) {
      int holder = h;
      EmbeddedServer server = h == 0 ? first : second;
      runs.add(
          CompletableFuture.supplyAsync(
              () -> {
                List<Integer> statuses = new ArrayList<>();
                try {
                  for (int i = 0; i < 40; i++) {
                    String body =
                        EventCodec.mapper()
                            .writeValueAsString(
                                Map.of(
                                    "holder",
                                    "ov-" + holder,
                                    "workspaces",
                                    sets.get(holder),
                                    "leaseSeconds",
                                    30,
                                    "waitSeconds",
                                    1));
                    HttpResponse<String> r = send(server, "POST", "/tenants/acme/locks", body);
                    statuses.add(r.statusCode());
                    if (r.statusCode() == 200) {
                      for (JsonNode l : json(r).get("locks")) {
                        release(server, l.get("workspace").asText(), l.get("lockId").asText());
                      }
                    }
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                return statuses;
              }));
    }
    List<Integer> all = new ArrayList<>();
    for (CompletableFuture<List<Integer>> run : runs) {
      all.addAll(run.get(120, java.util.concurrent.TimeUnit.SECONDS));
    }
    assertThat(all).hasSize(80).allMatch(s -> s == 200 || s == 423);
    assertThat(all).contains(200);
    // all-or-nothing in the audit trail: each holder's acquisitions come in complete sets
    try (Connection c = database();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT holder, workspace, count(*) FROM lock.lock_events WHERE tenant = 'acme'"
                    + " AND workspace LIKE 'ov-%' AND type = 'acquired' GROUP BY holder, workspace")) {
      Map<String, Map<String, Integer>> counts = new java.util.HashMap<>();
      while (rs.next()) {
        counts
            .computeIfAbsent(rs.getString(1), k -> new java.util.HashMap<>())
            .put(rs.getString(2), rs.getInt(3));
      }
      for (int h = 0; h < 2; h++) {
        Map<String, Integer> mine = counts.getOrDefault("ov-" + h, Map.of());
        assertThat(mine.keySet()).containsExactlyInAnyOrderElementsOf(sets.get(h));
        assertThat(new java.util.HashSet<>(mine.values())).hasSize(1);
      }
    }
  }

  // --- fixtures -----------------------------------------------------------------------------

  private static String readLine(BufferedReader reader) {
    try {
      return reader.readLine();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Connection database() throws Exception {
    return DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
  }

  /** The audit trail's event types of a workspace, oldest first. */
  private List<String> auditTypes(String ws) throws Exception {
    List<String> types = new ArrayList<>();
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT type FROM lock.lock_events WHERE tenant = 'acme' AND workspace = ?"
                    + " ORDER BY id")) {
      ps.setString(1, ws);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          types.add(rs.getString(1));
        }
      }
    }
    return types;
  }

  private Instant auditTime(String ws, String type, String holder) throws Exception {
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT at FROM lock.lock_events WHERE tenant = 'acme' AND workspace = ?"
                    + " AND type = ? AND holder = ? ORDER BY id DESC LIMIT 1")) {
      ps.setString(1, ws);
      ps.setString(2, type);
      ps.setString(3, holder);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as(type + " of " + holder + " in " + ws).isTrue();
        Timestamp at = rs.getTimestamp(1);
        return at.toInstant();
      }
    }
  }

  /** Reads stagecraft.lock-events from the start until {@code wanted} matched, or the deadline. */
  private List<EventEnvelope> lockEvents(
      java.util.function.Predicate<EventEnvelope> wanted, Duration deadline) {
    Properties props = new Properties();
    props.put("bootstrap.servers", kafka.bootstrapServers());
    props.put("group.id", "lock-it-" + UUID.randomUUID());
    props.put("auto.offset.reset", "earliest");
    List<EventEnvelope> found = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.LOCK_EVENTS));
      await()
          .atMost(deadline)
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  EventEnvelope e = EventCodec.decode(r.value());
                  if (wanted.test(e)) {
                    found.add(e);
                  }
                }
                return !found.isEmpty();
              });
    }
    return found;
  }

  // --- requests -----------------------------------------------------------------------------

  private HttpResponse<String> acquire(
      EmbeddedServer server, String ws, String holder, int leaseSeconds, int waitSeconds)
      throws Exception {
    return acquireAsync(server, ws, holder, leaseSeconds, waitSeconds).get();
  }

  private CompletableFuture<HttpResponse<String>> acquireAsync(
      EmbeddedServer server, String ws, String holder, int leaseSeconds, int waitSeconds) {
    String body =
        "{\"holder\":\"%s\",\"leaseSeconds\":%d,\"waitSeconds\":%d,\"info\":\"test\"}"
            .formatted(holder, leaseSeconds, waitSeconds);
    return http.sendAsync(
        request(server, "POST", "/tenants/acme/workspaces/" + ws + "/lock", body),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> heartbeat(EmbeddedServer server, String ws, String lockId)
      throws Exception {
    return send(
        server, "POST", "/tenants/acme/workspaces/" + ws + "/lock/" + lockId + "/heartbeat", null);
  }

  private HttpResponse<String> release(EmbeddedServer server, String ws, String lockId)
      throws Exception {
    return send(server, "DELETE", "/tenants/acme/workspaces/" + ws + "/lock/" + lockId, null);
  }

  private HttpResponse<String> show(EmbeddedServer server, String ws) throws Exception {
    return send(server, "GET", "/tenants/acme/workspaces/" + ws + "/lock", null);
  }

  private HttpResponse<String> send(EmbeddedServer server, String method, String path, String body)
      throws Exception {
    return http.send(request(server, method, path, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(EmbeddedServer server, String method, String path, String body) {
    return HttpRequest.newBuilder(uri(server, "/internal/v1" + path))
        .header("Authorization", "Bearer " + SERVICE_TOKEN)
        .header("Content-Type", "application/json")
        .method(
            method,
            body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private static URI uri(EmbeddedServer server, String path) {
    return URI.create("http://127.0.0.1:" + server.getPort() + path);
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return EventCodec.mapper().readTree(response.body());
  }
}
