package dev.stagecraft.chaos.soak;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The chat-ops door (docs/chatops.md): signed CloudEvents {@code dev.stagecraft.run.requested} sent
 * to {@code stagecraft.run-requests} as a tenant's bot sends them — connected as the dev stack's
 * bot principal {@code trigger} (its {@code trigger.properties}, SASL/SCRAM), signed with the
 * tenant's trigger secret ({@code POST /api/v1/hooks/secret}). Each trigger the broker acknowledged
 * goes to the {@link DoorRecorder} with its topic, partition, offset and event id and the run its
 * idempotency key names ({@code RunCoordinator.runIdFor}); the checker requires that run to exist.
 * Each run is followed through the API to its end.
 *
 * <p>Two workspaces of each tenant: {@code bot-0} gets one trigger at a time; {@code co-0} has
 * {@code coalescing: true} and gets a burst of {@link #BURST} triggers at once, so the ones still
 * queued behind the first are superseded ({@code canceled}, "Superseded by run …") — the checker's
 * FIFO check sets them aside.
 */
final class ChatOpsDoor implements SoakDoor {
  static final String TOPIC = "stagecraft.run-requests";
  static final int BURST = 4;
  static final String SINGLE = "bot-0";
  static final String COALESCING = "co-0";

  private final SoakApi api;
  private final Properties kafka;
  private final DoorRecorder recorder;
  private final Path journal;
  private final Consumer<List<String>> manifest;
  private final Duration runPatience;
  private final long seed;
  private final PrintStream out;
  private final Map<String, String> secrets = new ConcurrentHashMap<>();
  private final Map<String, String> tenantIds = new ConcurrentHashMap<>();
  private List<Workload.Tenant> tenants;
  private final AtomicInteger acknowledged = new AtomicInteger();
  private final AtomicInteger unacknowledged = new AtomicInteger();
  private final AtomicInteger superseded = new AtomicInteger();
  private final AtomicInteger unfinished = new AtomicInteger();
  private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();

  /**
   * @param kafkaClientProperties the bot principal's client settings file ({@code
   *     trigger.properties} of the dev stack)
   * @param manifest takes the manifest lines of each trigger's steps
   */
  ChatOpsDoor(
      SoakApi api,
      String bootstrap,
      Path kafkaClientProperties,
      DoorRecorder recorder,
      Path journal,
      Consumer<List<String>> manifest,
      Duration runPatience,
      long seed,
      PrintStream out)
      throws IOException {
    this.api = api;
    this.kafka = new Properties();
    try (InputStream in = Files.newInputStream(kafkaClientProperties)) {
      kafka.load(in);
    }
    kafka.put("bootstrap.servers", bootstrap);
    kafka.put("acks", "all");
    kafka.put("delivery.timeout.ms", "60000");
    this.recorder = recorder;
    this.journal = journal;
    this.manifest = manifest;
    this.runPatience = runPatience;
    this.seed = seed;
    this.out = out;
  }

  @Override
  public String name() {
    return "chat-ops";
  }

  @Override
  public void setUp(List<Workload.Tenant> tenants) throws IOException, InterruptedException {
    this.tenants = List.copyOf(tenants);
    for (Workload.Tenant t : tenants) {
      SoakApi.Response issued = api.call("POST", "/api/v1/hooks/secret", t.token(), null, null);
      if (issued.status() != 201) {
        throw new IllegalStateException(
            "soak set-up: POST /api/v1/hooks/secret for "
                + t.name()
                + " answered "
                + issued.status()
                + " "
                + issued.body());
      }
      secrets.put(t.name(), issued.text("/secret"));
      tenantIds.put(t.name(), issued.text("/tenant"));
      for (String ws : List.of(SINGLE, COALESCING)) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", ws);
        body.put("autoApply", true);
        body.put("coalescing", ws.equals(COALESCING));
        SoakApi.Response r = api.call("POST", "/api/v1/workspaces", t.token(), body, null);
        if (r.status() != 201) {
          throw new IllegalStateException(
              "soak set-up: POST /api/v1/workspaces " + ws + " answered " + r.status());
        }
      }
    }
  }

  @Override
  public void work(Random random, BooleanSupplier goOn) throws InterruptedException {
    int n = 0;
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(kafka, new StringSerializer(), new StringSerializer())) {
      while (goOn.getAsBoolean()) {
        Workload.Tenant tenant = tenants.get(random.nextInt(tenants.size()));
        boolean burst = random.nextInt(3) == 0;
        String ws = burst ? COALESCING : SINGLE;
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < (burst ? BURST : 1); i++) {
          String runId = send(producer, tenant, ws, "s" + seed + "bot" + n++);
          if (runId != null) {
            runs.add(runId);
          }
        }
        for (String runId : runs) {
          follow(tenant, runId);
        }
      }
    }
  }

  /** Sends one signed trigger and waits for the broker's acknowledgement; its run id, or null. */
  private String send(
      KafkaProducer<String, String> producer, Workload.Tenant tenant, String ws, String rev)
      throws InterruptedException {
    String tenantId = tenantIds.get(tenant.name());
    String key = "chaos-" + rev;
    String runId =
        "run-"
            + UUID.nameUUIDFromBytes(
                SecretsKeyring.associatedData("stagecraft-run-request", tenantId, key));
    SoakConfigs.Shape shape = SoakConfigs.shape(ws.equals(SINGLE) ? 0 : 1, journal);
    manifest.accept(shape.manifestLines(rev, runId)); // before it can run: every token is known
    String eventId = "evt-" + rev;
    try {
      String body = event(tenantId, eventId, ws, key, rev, shape.mainTf());
      long now = Instant.now().getEpochSecond();
      ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, key, body);
      record
          .headers()
          .add("stagecraft-timestamp", Long.toString(now).getBytes(StandardCharsets.UTF_8));
      record
          .headers()
          .add(
              "stagecraft-signature",
              sign(secrets.get(tenant.name()), now, body).getBytes(StandardCharsets.UTF_8));
      record.headers().add("stagecraft-tenant", tenantId.getBytes(StandardCharsets.UTF_8));
      RecordMetadata m = producer.send(record).get(90, TimeUnit.SECONDS);
      acknowledged.incrementAndGet();
      recorder.trigger(tenant.name(), runId, m.topic(), m.partition(), m.offset(), eventId);
      return runId;
    } catch (ExecutionException | TimeoutException | IOException | GeneralSecurityException e) {
      unacknowledged.incrementAndGet(); // not committed as far as the bot knows: nothing to follow
      out.println("soak: chat-ops trigger " + eventId + " not acknowledged: " + e);
      return null;
    }
  }

  private static String event(
      String tenantId, String eventId, String ws, String key, String rev, String mainTf)
      throws IOException {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("workspace", ws);
    data.put("configuration", Map.of("files", Map.of("main.tf", mainTf)));
    data.put("variables", Map.of("rev", rev));
    data.put("message", "soak chat-ops " + rev);
    data.put("requested_by", "soak-bot");
    data.put("idempotency_key", key);
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("specversion", "1.0");
    envelope.put("id", eventId);
    envelope.put("source", "/bots/chaos-soak");
    envelope.put("type", "dev.stagecraft.run.requested");
    envelope.put("time", Instant.now().toString());
    envelope.put("datacontenttype", "application/json");
    envelope.put("tenant", tenantId);
    envelope.put("data", data);
    return SoakApi.JSON.writeValueAsString(envelope);
  }

  private static String sign(String secret, long timestamp, String body)
      throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return "sha256="
        + HexFormat.of()
            .formatHex(mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
  }

  /** Follows the run through the API (404 until a planner consumed the trigger) to its end. */
  private void follow(Workload.Tenant tenant, String runId) throws InterruptedException {
    long giveUp = System.nanoTime() + runPatience.toNanos();
    while (System.nanoTime() < giveUp) {
      try {
        SoakApi.Response r = api.call("GET", "/api/v1/runs/" + runId, tenant.token(), null, null);
        JsonNode run = r.json();
        if (r.status() == 200 && run.path("terminal").asBoolean(false)) {
          String status = run.path("status").asText();
          outcomes.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
          if (run.toString().contains("Superseded by run")) {
            superseded.incrementAndGet();
          }
          return;
        }
      } catch (IOException e) {
        out.println("soak: chat-ops following " + runId + ": " + e);
      }
      Thread.sleep(300); // polling the run's status, as a bot without a consumer would
    }
    unfinished.incrementAndGet();
    out.println("soak: chat-ops run " + runId + " did not end within " + runPatience);
  }

  @Override
  public String summary() {
    Map<String, Integer> ended = new TreeMap<>();
    outcomes.forEach((k, v) -> ended.put(k, v.get()));
    return acknowledged.get()
        + " triggers acknowledged, "
        + unacknowledged.get()
        + " not, runs ended "
        + ended
        + " ("
        + superseded.get()
        + " superseded), "
        + unfinished.get()
        + " not ended";
  }
}
