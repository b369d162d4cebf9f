package dev.stagecraft.chaos.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The Terraform HTTP backend door: what {@code terraform apply} with the {@code http} backend does,
 * on workspaces of its own ({@code tf-0…} of each tenant, not touched by runs): {@code LOCK} with a
 * LockInfo, {@code GET} the state, {@code POST ?ID=} the state with the next serial (with {@code
 * Content-MD5}), {@code UNLOCK} — over HTTP to the state service with the tenant's token as the
 * basic-auth password (docs/terraform-backend.md). Like Terraform's retrying HTTP client, a request
 * that found the service down (connection refused or cut, 5xx) is sent again, the push with the
 * same bytes. Each push answered 200 goes to the {@link DoorRecorder}; the checker then requires
 * its serial in the workspace's state history (no lost events), and the history itself to be
 * gapless with increasing serials.
 */
final class BackendDoor implements SoakDoor {
  static final int WORKSPACES = 2;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final SoakApi api;
  private final String stateUrl;
  private final DoorRecorder recorder;
  private final Duration patience;
  private final PrintStream out;
  private List<Workload.Tenant> tenants;
  private final AtomicInteger pushes = new AtomicInteger();
  private final AtomicInteger retried = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private final AtomicInteger busy = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();

  BackendDoor(
      SoakApi api, String stateUrl, DoorRecorder recorder, Duration patience, PrintStream out) {
    this.api = api;
    this.stateUrl = stateUrl;
    this.recorder = recorder;
    this.patience = patience;
    this.out = out;
  }

  @Override
  public String name() {
    return "tf-backend";
  }

  static String workspace(int i) {
    return "tf-" + i;
  }

  @Override
  public void setUp(List<Workload.Tenant> tenants) throws IOException, InterruptedException {
    this.tenants = List.copyOf(tenants);
    for (Workload.Tenant t : tenants) {
      for (int i = 0; i < WORKSPACES; i++) {
        SoakApi.Response r =
            api.call(
                "POST",
                "/api/v1/workspaces",
                t.token(),
                Map.of("name", workspace(i), "autoApply", true),
                null);
        if (r.status() != 201) {
          throw new IllegalStateException(
              "soak set-up: POST /api/v1/workspaces " + workspace(i) + " answered " + r.status());
        }
      }
    }
  }

  @Override
  public void work(Random random, BooleanSupplier goOn) throws InterruptedException {
    while (goOn.getAsBoolean()) {
      Workload.Tenant tenant = tenants.get(random.nextInt(tenants.size()));
      String ws = workspace(random.nextInt(WORKSPACES));
      try {
        apply(tenant, ws);
      } catch (IOException | RuntimeException e) {
        failed.incrementAndGet();
        out.println("soak: tf-backend " + tenant.name() + "/" + ws + ": " + e);
      }
      Thread.sleep(200 + random.nextInt(400)); // the pace of a CI pipeline, not a tight loop
    }
  }

  /** One {@code terraform apply}: lock, read, push the next serial, unlock. */
  private void apply(Workload.Tenant tenant, String ws) throws IOException, InterruptedException {
    String lockId = UUID.randomUUID().toString();
    byte[] info = lockInfo(lockId, ws);
    Reply locked = send(tenant, "LOCK", ws, "/lock", info, Map.of());
    if (locked.status() == 423) {
      String holder = SoakApi.JSON.readTree(locked.body()).path("ID").asText();
      if (!holder.equals(lockId)) {
        busy.incrementAndGet(); // as Terraform: "Error acquiring the state lock"
        releaseOwnLeftover(tenant, ws, locked.body());
        return;
      }
    } else if (locked.status() != 200) {
      throw new IOException("LOCK answered " + locked.status() + ": " + locked.body());
    }
    try {
      Reply current = send(tenant, "GET", ws, "/state", null, Map.of());
      long serial = 0;
      String lineage = UUID.randomUUID().toString();
      if (current.status() == 200) {
        JsonNode state = SoakApi.JSON.readTree(current.body());
        serial = state.path("serial").asLong();
        lineage = state.path("lineage").asText();
      } else if (current.status() != 204) {
        throw new IOException("GET state answered " + current.status() + ": " + current.body());
      }
      long next = serial + 1;
      byte[] body = state(next, lineage, tenant.name() + "/" + ws);
      Reply pushed =
          send(tenant, "POST", ws, "/state?ID=" + lockId, body, Map.of("Content-MD5", md5(body)));
      if (pushed.status() == 200) {
        pushes.incrementAndGet();
        recorder.push(tenant.name(), ws, next, lockId);
      } else {
        refused.incrementAndGet();
        out.println(
            "soak: tf-backend push of serial "
                + next
                + " to "
                + tenant.name()
                + "/"
                + ws
                + " answered "
                + pushed.status()
                + ": "
                + pushed.body());
      }
    } finally {
      Reply unlocked = send(tenant, "UNLOCK", ws, "/lock", info, Map.of());
      if (unlocked.status() != 200) {
        out.println(
            "soak: tf-backend UNLOCK "
                + tenant.name()
                + "/"
                + ws
                + " answered "
                + unlocked.status()
                + ": "
                + unlocked.body());
      }
    }
  }

  /**
   * A lock of this door left behind (an UNLOCK that never got through) is released with the
   * holder's LockInfo, as {@code terraform force-unlock} would be used by its owner.
   */
  private void releaseOwnLeftover(Workload.Tenant tenant, String ws, String holderInfo)
      throws IOException, InterruptedException {
    JsonNode holder = SoakApi.JSON.readTree(holderInfo);
    if (holder.path("Who").asText().equals("soak@chaos")) {
      send(tenant, "UNLOCK", ws, "/lock", holderInfo.getBytes(StandardCharsets.UTF_8), Map.of());
    }
  }

  private static byte[] lockInfo(String id, String ws) throws IOException {
    ObjectNode info = SoakApi.JSON.createObjectNode();
    info.put("ID", id);
    info.put("Operation", "OperationTypeApply");
    info.put("Info", "");
    info.put("Who", "soak@chaos");
    info.put("Version", "1.9.0");
    info.put("Created", Instant.now().toString());
    info.put("Path", ws);
    return SoakApi.JSON.writeValueAsBytes(info);
  }

  /** A v4 state as Terraform writes it: no resources, one output that names the push. */
  private static byte[] state(long serial, String lineage, String where) throws IOException {
    ObjectNode s = SoakApi.JSON.createObjectNode();
    s.put("version", 4);
    s.put("terraform_version", "1.9.0");
    s.put("serial", serial);
    s.put("lineage", lineage);
    ObjectNode output = s.putObject("outputs").putObject("pushed");
    output.put("value", where + " serial " + serial);
    output.put("type", "string");
    s.putArray("resources");
    s.putNull("check_results");
    return SoakApi.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(s);
  }

  private static String md5(byte[] body) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  record Reply(int status, String body) {}

  /** One request, sent again while the service is down (refused, cut, 5xx) within the patience. */
  private Reply send(
      Workload.Tenant tenant,
      String method,
      String ws,
      String path,
      byte[] body,
      Map<String, String> headers)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    String auth =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("stagecraft:" + tenant.token()).getBytes(StandardCharsets.UTF_8));
    IOException last = null;
    Reply failedReply = null;
    boolean first = true;
    while (System.nanoTime() < deadline) {
      if (!first) {
        retried.incrementAndGet();
        Thread.sleep(500); // the service is restarting: Terraform's client waits and retries too
      }
      first = false;
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(stateUrl + "/tf/v1/workspaces/" + ws + path))
              .timeout(Duration.ofSeconds(20))
              .header("Authorization", auth)
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(body));
      if (body != null) {
        b.header("Content-Type", "application/json");
      }
      headers.forEach(b::header);
      try {
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() < 500) {
          return new Reply(r.statusCode(), r.body());
        }
        failedReply = new Reply(r.statusCode(), r.body());
      } catch (IOException e) {
        last = e;
      }
    }
    if (failedReply != null) {
      return failedReply;
    }
    throw last != null ? last : new IOException(method + " " + path + ": no answer");
  }

  @Override
  public String summary() {
    return pushes.get()
        + " pushes stored, "
        + refused.get()
        + " refused, "
        + busy.get()
        + " found the lock taken, "
        + retried.get()
        + " requests sent again, "
        + failed.get()
        + " applies failed";
  }
}
