package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stagecraft.platform.auth.ServiceRole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Many Terraform-style clients fight for one workspace's lock over the HTTP backend of the real
 * stack (state-service, lock-service, PostgreSQL as separate processes; backend lease 2 s). Each
 * client makes {@value #ATTEMPTS} lock attempts; on a grant it reads the state and writes the next
 * serial under its lock ID, and now and then pauses longer than the lease before writing again —
 * the stale process that fencing exists for. Afterwards the recorded history is checked:
 *
 * <ul>
 *   <li>the lock service's audit trail (the serialization order of all lock decisions) alternates
 *       acquire / end of the same lock, and its fencing tokens strictly increase;
 *   <li>the lease intervals (grant to release or recorded expiry, server time) never overlap;
 *   <li>every accepted write is in the state history inside its writer's lease interval, and the
 *       history holds exactly the accepted writes;
 *   <li>every write made after a pause longer than the lease, and every write started after the
 *       server recorded the end of the writer's lease, was rejected ({@code 409}).
 * </ul>
 *
 * <p>The pauses are the workload (a stalled client), not synchronization. Sizes: {@code
 * -Dlocks.clients} (50) and {@code -Dlocks.attempts} (200).
 */
class LockConcurrencyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int CLIENTS = Integer.getInteger("locks.clients", 50);
  static final int ATTEMPTS = Integer.getInteger("locks.attempts", 200);
  static final Duration LEASE = Duration.ofSeconds(2);
  static final Duration PAUSE = Duration.ofMillis(2500);
  static final int MAX_PAUSES_PER_CLIENT = 2;
  static final String LINEAGE = "5f1c9d3a-lock-concurrency";

  static SharedStack stack;
  static String stateUrl;
  static String tenant;
  static String token;

  /** For the tenant and token routes. */
  static String operatorToken;

  /** For the run routes (taint), as the planner calls them. */
  static String plannerToken;

  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  @BeforeAll
  static void start() throws Exception {
    stack =
        SharedStack.dedicated(
            "locks", Map.of("STAGECRAFT_BACKEND_LOCK_LEASE_SECONDS", "" + LEASE.toSeconds()));
    stateUrl = stack.stack().info().state();
    operatorToken = stack.serviceToken(ServiceRole.OPERATOR);
    plannerToken = stack.serviceToken(ServiceRole.PLANNER);
    tenant = "locks-" + UUID.randomUUID().toString().substring(0, 8);
    send("POST", stateUrl + "/internal/v1/tenants", "Bearer " + operatorToken, null, body(tenant));
    HttpResponse<String> t =
        send(
            "POST",
            stateUrl + "/internal/v1/tenants/" + tenant + "/tokens",
            "Bearer " + operatorToken,
            null,
            "{\"role\":\"deployer\"}");
    assertThat(t.statusCode()).as(t.body()).isEqualTo(201);
    token = JSON.readTree(t.body()).get("token").asText();
  }

  private static String body(String tenant) {
    return "{\"name\":\"" + tenant + "\"}";
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
  }

  /** One client request and its answer; times are the client's (same host clock as the server). */
  record Op(
      int client,
      String kind,
      String lockId,
      long serial,
      boolean afterPause,
      Instant sentAt,
      Instant answeredAt,
      int status,
      String detail) {}

  @Test
  void neverTwoHoldersAndEveryStaleWriteIsRejected() throws Exception {
    String ws = "contended";
    long started = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    List<Future<List<Op>>> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      int client = i;
      clients.add(pool.submit(() -> runClient(client, ws)));
    }
    List<Op> history = new ArrayList<>();
    for (Future<List<Op>> c : clients) {
      history.addAll(c.get(30, TimeUnit.MINUTES));
    }
    pool.shutdown();
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    List<LeaseRow> leases = lockHistory(ws);
    List<Version> versions = stateHistory(ws);
    long grants = history.stream().filter(o -> o.kind.equals("lock") && o.status == 200).count();
    long accepted = history.stream().filter(o -> o.kind.equals("write") && o.status == 200).count();
    List<Op> paused = history.stream().filter(Op::afterPause).toList();
    System.out.printf(
        "lock concurrency: %d clients x %d attempts in %d s: %d grants, %d accepted writes,"
            + " %d writes after a pause (all must be rejected), %d leases in the lock history%n",
        CLIENTS, ATTEMPTS, took.toSeconds(), grants, accepted, paused.size(), leases.size());

    // 1. the lock history: one holder at a time, strictly increasing fencing tokens
    Map<String, LeaseRow> byHolder = new HashMap<>();
    LeaseRow previous = null;
    for (LeaseRow lease : leases) {
      if (previous != null) {
        assertThat(lease.token)
            .as("fencing tokens strictly increase")
            .isGreaterThan(previous.token);
        assertThat(lease.acquiredAt)
            .as("lease %s starts after lease %s ended", lease.lockId, previous.lockId)
            .isAfterOrEqualTo(previous.endedAt);
      }
      byHolder.put(lease.holder, lease);
      previous = lease;
    }
    assertThat(leases).hasSize((int) grants);

    // 2. accepted writes are exactly the state versions, each inside its writer's lease
    assertThat(versions).hasSize((int) accepted);
    for (Version v : versions) {
      LeaseRow lease = byHolder.get("terraform:" + v.writer);
      assertThat(lease).as("version %d written by a lock holder", v.serial).isNotNull();
      assertThat(v.at)
          .as("version %d inside its lease", v.serial)
          .isBetween(lease.acquiredAt, lease.endedAt);
    }
    for (int i = 1; i < versions.size(); i++) {
      assertThat(versions.get(i).serial).isGreaterThan(versions.get(i - 1).serial);
    }

    // 3. stale writes are rejected
    assertThat(paused).as("the run must contain stalled writers").isNotEmpty();
    for (Op op : paused) {
      assertThat(op.status).as("write after a pause longer than the lease: %s", op).isEqualTo(409);
    }
    for (Op op : history) {
      if (!op.kind.equals("write")) {
        continue;
      }
      LeaseRow lease = byHolder.get("terraform:" + op.lockId);
      if (lease != null && op.sentAt.isAfter(lease.endedAt)) {
        assertThat(op.status).as("write after its lease ended: %s", op).isEqualTo(409);
      }
    }
    assertThat(accepted).as("some writes must succeed").isPositive();

    // 4. every older token is refused by a state write that names its token (taint), the newest
    //    seen is accepted (the control that shows the endpoint can accept at all)
    long newest = byHolder.get("terraform:" + versions.get(versions.size() - 1).writer).token;
    int stale = 0;
    for (LeaseRow lease : leases) {
      if (lease.token < newest) {
        assertThat(taint(ws, lease.token).statusCode())
            .as("taint with stale token %d (newest %d)", lease.token, newest)
            .isEqualTo(409);
        stale++;
      }
    }
    assertThat(stale).isPositive();
    HttpResponse<String> current = taint(ws, newest);
    assertThat(current.statusCode()).as(current.body()).isEqualTo(200);
  }

  private static HttpResponse<String> taint(String ws, long fencingToken) throws Exception {
    return send(
        "POST",
        stateUrl + "/internal/v1/tenants/" + tenant + "/workspaces/" + ws + "/instances/taint",
        "Bearer " + plannerToken,
        null,
        "{\"address\":\"stateful_provisioning.app\",\"tainted\":true,\"fencingToken\":"
            + fencingToken
            + ",\"actor\":\"lock-concurrency-test\"}");
  }

  private List<Op> runClient(int client, String ws) throws Exception {
    List<Op> ops = new ArrayList<>();
    int pauses = 0;
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String basic =
        "Basic " + Base64.getEncoder().encodeToString(("stagecraft:" + token).getBytes());
    String lockUrl = stateUrl + "/tf/v1/workspaces/" + ws + "/lock";
    String stateUrlWs = stateUrl + "/tf/v1/workspaces/" + ws + "/state";
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      String id = UUID.randomUUID().toString();
      ObjectNode info = JSON.createObjectNode();
      info.put("ID", id);
      info.put("Operation", "OperationTypeApply");
      info.put("Info", "");
      info.put("Who", "client-" + client);
      info.put("Version", "1.9.0");
      info.put("Created", Instant.now().toString());
      info.put("Path", "");
      Instant sent = Instant.now();
      HttpResponse<String> lock = send("LOCK", lockUrl, basic, null, info.toString());
      ops.add(op(client, "lock", id, 0, false, sent, lock));
      if (lock.statusCode() != 200) {
        Thread.sleep(random.nextInt(40)); // pacing of the next attempt, not synchronization
        continue;
      }
      Instant lastRenewal = Instant.now();
      HttpResponse<String> current = send("GET", stateUrlWs, basic, null, null);
      long serial =
          current.statusCode() == 200 ? JSON.readTree(current.body()).get("serial").asLong() : 0;
      boolean pause = pauses < MAX_PAUSES_PER_CLIENT && random.nextInt(8) == 0;
      int writes = pause ? 2 : 1;
      for (int w = 0; w < writes; w++) {
        boolean afterPause = false;
        if (pause && w == 1) {
          pauses++;
          Thread.sleep(PAUSE.toMillis()); // the stall under test: longer than the lease
          afterPause = Duration.between(lastRenewal, Instant.now()).compareTo(LEASE) > 0;
        }
        serial++;
        sent = Instant.now();
        HttpResponse<String> write =
            send("POST", stateUrlWs + "?ID=" + id, basic, null, document(serial, id));
        ops.add(op(client, "write", id, serial, afterPause, sent, write));
        if (write.statusCode() == 200) {
          lastRenewal = Instant.now();
        }
      }
      HttpResponse<String> unlock = send("UNLOCK", lockUrl, basic, null, info.toString());
      ops.add(op(client, "unlock", id, 0, false, Instant.now(), unlock));
    }
    return ops;
  }

  private static Op op(
      int client,
      String kind,
      String id,
      long serial,
      boolean afterPause,
      Instant sent,
      HttpResponse<String> r) {
    return new Op(
        client,
        kind,
        id,
        serial,
        afterPause,
        sent,
        Instant.now(),
        r.statusCode(),
        r.statusCode() == 200 ? "" : r.body());
  }

  /** A small Terraform v4 state whose output names the writer's lock ID. */
  private static String document(long serial, String writer) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("version", 4);
    doc.put("terraform_version", "1.9.0");
    doc.put("serial", serial);
    doc.put("lineage", LINEAGE);
    ObjectNode out = doc.putObject("outputs").putObject("writer");
    out.put("value", writer);
    out.put("type", "string");
    ObjectNode resource = doc.putArray("resources").addObject();
    resource.put("mode", "managed");
    resource.put("type", "stateful_provisioning");
    resource.put("name", "app");
    resource.put("provider", "provider[\"registry.terraform.io/hashicorp/stateful\"]");
    ObjectNode instance = resource.putArray("instances").addObject();
    instance.put("schema_version", 0);
    instance.putObject("attributes").put("id", "app").put("state_key", "s" + serial);
    doc.putArray("check_results");
    return doc.toString();
  }

  // ----------------------------------------------------------------- server-side history

  record LeaseRow(String lockId, String holder, long token, Instant acquiredAt, Instant endedAt) {}

  /** The lock service's audit trail as lease intervals, in decision order. */
  private List<LeaseRow> lockHistory(String ws) throws Exception {
    List<LeaseRow> out = new ArrayList<>();
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT type, lock_id, holder, fencing_token, at FROM lock.lock_events"
                    + " WHERE tenant = ? AND workspace = ? AND type IN"
                    + " ('acquired', 'released', 'expired', 'force_released') ORDER BY id")) {
      ps.setString(1, tenant);
      ps.setString(2, ws);
      try (ResultSet rs = ps.executeQuery()) {
        String[] open = null;
        Instant openedAt = null;
        while (rs.next()) {
          String type = rs.getString(1);
          String lockId = rs.getString(2);
          Instant at = rs.getTimestamp(5).toInstant();
          if (type.equals("acquired")) {
            assertThat(open).as("acquired %s while %s holds the lock", lockId, open).isNull();
            open = new String[] {lockId, rs.getString(3), "" + rs.getLong(4)};
            openedAt = at;
          } else {
            assertThat(open).as("%s of %s while nobody holds the lock", type, lockId).isNotNull();
            assertThat(lockId).as("%s names the holder's lock", type).isEqualTo(open[0]);
            out.add(new LeaseRow(open[0], open[1], Long.parseLong(open[2]), openedAt, at));
            open = null;
          }
        }
        if (open != null) {
          out.add(new LeaseRow(open[0], open[1], Long.parseLong(open[2]), openedAt, Instant.MAX));
        }
      }
    }
    return out;
  }

  record Version(long serial, String writer, Instant at) {}

  /** The state history's versions written over the backend, in order. */
  private List<Version> stateHistory(String ws) throws Exception {
    List<Version> out = new ArrayList<>();
    try (Connection c = database();
        PreparedStatement ps =
            c.prepareStatement(
                // a pushed document is embedded in its event or stored apart (ADR 0022), its
                // bytes in the document row or, streamed while validated, in their own (ADR 0031),
                // compressed by the service (ADR 0041)
                "SELECT coalesce((e.payload #>> '{document,serial}')::bigint, d.serial),"
                    + " e.payload #>> '{document,outputs,writer,value}',"
                    + " coalesce(d.content, dc.content, dc.packed), dc.zstd, d.size,"
                    + " e.created_at FROM state.state_events e LEFT JOIN state.state_documents d"
                    + " ON d.tenant = e.tenant AND d.workspace = e.workspace"
                    + " AND d.digest = e.payload #>> '{stored,digest}'"
                    + " LEFT JOIN state.document_contents dc ON dc.tenant = d.tenant"
                    + " AND dc.workspace = d.workspace AND dc.content_id = d.content_id"
                    + " WHERE e.tenant = ? AND e.workspace = ?"
                    + " AND (e.payload #>> '{document,serial}' IS NOT NULL OR d.digest IS NOT NULL)"
                    + " ORDER BY e.sequence")) {
      ps.setString(1, tenant);
      ps.setString(2, ws);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String writer = rs.getString(2);
          if (writer == null) {
            byte[] zstd = rs.getBytes(4);
            byte[] document =
                zstd == null
                    ? rs.getBytes(3)
                    : dev.stagecraft.state.adapter.document.CompressedContent.decompress(
                        zstd, rs.getInt(5));
            var value = JSON.readTree(document).path("outputs").path("writer").path("value");
            writer = value.isMissingNode() ? null : value.asText();
          }
          out.add(new Version(rs.getLong(1), writer, rs.getTimestamp(6).toInstant()));
        }
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static Connection database() throws Exception {
    return stack.stack().openDatabase();
  }

  static HttpResponse<String> send(
      String method, String url, String authorization, String contentMd5, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (contentMd5 != null) {
      b.header("Content-MD5", contentMd5);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
