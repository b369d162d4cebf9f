package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Chat-ops end to end on the real stack: a CloudEvent posted with Kafka's own console producer
 * ({@code org.apache.kafka.tools.ConsoleProducer} from the Kafka distribution's {@code kafka-tools}
 * artifact, run as a separate JVM with only Kafka's jars, with the bot principal's {@code
 * trigger.properties} as the dev stack writes it) makes a run whose transitions arrive in order on
 * {@code stagecraft.run-events}; the same event twice makes one run; a malformed or wrongly signed
 * one lands in the dead-letter topic with its reason and the next good one still runs. Plus the
 * webhook: a good signature runs, a bad one or an old timestamp gets 401 and runs nothing.
 */
class ChatOpsTriggerTest {
  static final List<String> ORDER =
      List.of("pending", "queued", "planning", "planned", "applying", "applied");

  static SharedStack stack;
  static String tenant;
  static String secret;
  static KafkaConsumer<String, byte[]> consumer;
  static final List<ConsumerRecord<String, byte[]>> seen = new CopyOnWriteArrayList<>();
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    HttpResponse<String> issued =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(stack.plannerUrl() + "/api/v1/hooks/secret"))
                    .header("Authorization", "Bearer " + stack.token())
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
    JsonNode json = EventCodec.mapper().readTree(issued.body());
    tenant = json.get("tenant").asText();
    secret = json.get("secret").asText();
    // the administrator: a bot (principal trigger) reads run-events, not the dead letters
    Properties p = stack.kafka("admin");
    p.put("group.id", "chatops-test-" + UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(Topics.RUN_EVENTS, "stagecraft.dead-letter"));
  }

  @AfterAll
  static void stop() {
    if (consumer != null) {
      consumer.close();
    }
  }

  /** Polls what arrived so far (the raw consumer is used from the test thread only). */
  static List<ConsumerRecord<String, byte[]>> poll() {
    consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
    return seen;
  }

  static List<JsonNode> transitionsOf(String runId) {
    return poll().stream()
        .filter(r -> r.topic().equals(Topics.RUN_EVENTS))
        .map(r -> tree(r.value()))
        .filter(e -> runId.equals(e.path("runid").asText()))
        .toList();
  }

  static JsonNode tree(byte[] bytes) {
    try {
      return EventCodec.mapper().readTree(bytes);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String runIdFor(String tenant, String key) {
    // the documented derivation (docs/chatops.md): a bot can compute which run its request made
    return "run-"
        + UUID.nameUUIDFromBytes(
            SecretsKeyring.associatedData("stagecraft-run-request", tenant, key));
  }

  static String event(String workspace, String key, String marker) throws Exception {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("workspace", workspace);
    data.put(
        "configuration",
        Map.of(
            "files",
            Map.of(
                "main.tf",
                """
                variable "rev" {}
                resource "stateful_provisioning" "app" {
                  state_key = var.rev
                  provisioner "local-exec" {
                    command = "echo deploying ${var.rev}"
                  }
                }
                """)));
    data.put("variables", Map.of("rev", "abc-" + marker));
    data.put("message", "deploy app rev abc to " + workspace);
    data.put("requested_by", "alice");
    data.put("idempotency_key", key);
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("specversion", "1.0");
    envelope.put("id", "evt-" + marker);
    envelope.put("source", "/bots/slack");
    envelope.put("type", "dev.stagecraft.run.requested");
    envelope.put("time", Instant.now().toString());
    envelope.put("datacontenttype", "application/json");
    envelope.put("tenant", tenant);
    envelope.put("data", data);
    return EventCodec.mapper().writeValueAsString(envelope); // one line, no tabs
  }

  static String sign(String key, long timestamp, String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return "sha256="
        + HexFormat.of()
            .formatHex(mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
  }

  /** A console-producer input line: headers, key, value (parse.headers and parse.key). */
  static String signedLine(String body, String withSecret) throws Exception {
    long now = Instant.now().getEpochSecond();
    return "stagecraft-timestamp:"
        + now
        + ",stagecraft-signature:"
        + sign(withSecret, now, body)
        + "\tchatops\t"
        + body;
  }

  /**
   * Runs Kafka's console producer in its own JVM, with only third-party jars on its class path
   * (Stagecraft's own modules filtered out), feeding it {@code lines} on stdin.
   */
  static void consoleProducer(String... lines) throws Exception {
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> e.endsWith(".jar") && !e.contains("/dev/stagecraft/"))
            .collect(Collectors.joining(File.pathSeparator));
    assertThat(classPath).contains("kafka-tools-");
    Path log = Files.createTempFile(stack.root, "console-producer", ".log");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                "org.apache.kafka.tools.ConsoleProducer",
                "--bootstrap-server",
                stack.stack().info().kafka(),
                // a bot's credentials, as docs/chatops.md tells a bot owner to use them
                "--command-config",
                stack.stack().layout().kafkaClientPropertiesFile("trigger").toString(),
                "--topic",
                Topics.RUN_REQUESTS,
                "--reader-property",
                "parse.headers=true",
                "--reader-property",
                "parse.key=true")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try (var stdin = process.getOutputStream()) {
      stdin.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("console producer exits").isTrue();
    assertThat(process.exitValue()).as(Files.readString(log)).isZero();
  }

  @Test
  void aCloudEventFromKafkasConsoleProducerRunsOnceAndBadOnesAreDeadLettered() throws Exception {
    String marker = UUID.randomUUID().toString().substring(0, 8);
    String workspace = "chatops-" + marker;
    String key = "slack-" + marker;
    String runId = runIdFor(tenant, key);
    String good = event(workspace, key, marker);

    consoleProducer(signedLine(good, secret));
    awaitTransition(runId, "applied");
    List<JsonNode> transitions = transitionsOf(runId);
    List<String> statuses =
        transitions.stream().map(e -> e.path("data").path("status").asText()).toList();
    assertThat(statuses).startsWith("pending").endsWith("applied");
    assertThat(statuses).containsSubsequence("pending", "planning", "planned", "applying");
    List<Integer> positions = statuses.stream().map(ORDER::indexOf).toList();
    assertThat(positions).doesNotContain(-1).isSorted();
    List<Long> sequences = transitions.stream().map(e -> e.path("sequence").asLong()).toList();
    assertThat(sequences).isSorted().doesNotHaveDuplicates();
    assertThat(transitions).allMatch(e -> e.path("tenant").asText().equals(tenant));
    assertThat(transitions.get(0).path("data").path("message").asText())
        .contains("alice")
        .contains(key)
        .contains("deploy app rev abc to " + workspace);

    // the same event again, an unsigned one, a signed one that is no CloudEvent, a wrongly signed
    // one, then a good one: all in one partition (same key), so once the last one ran, the others
    // were handled before it
    String unsigned = event(workspace, "forged-" + marker, "forged-" + marker);
    String notAnEvent = "{\"not\":\"a cloudevent\",\"marker\":\"" + marker + "\"}";
    String nextMarker = marker + "-next";
    String nextKey = "slack-" + nextMarker;
    consoleProducer(
        signedLine(good, secret),
        "origin:test\tchatops\t{\"not\":\"signed\",\"marker\":\"" + marker + "\"}",
        "stagecraft-tenant:" + tenant + "," + signedLine(notAnEvent, secret),
        signedLine(unsigned, "sct_not-the-tenants-secret"),
        signedLine(event(workspace + "-next", nextKey, nextMarker), secret));
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                transitionsOf(runIdFor(tenant, nextKey)).stream()
                    .anyMatch(e -> e.path("data").path("status").asText().equals("applied")));

    List<JsonNode> ofWorkspace =
        poll().stream()
            .filter(r -> r.topic().equals(Topics.RUN_EVENTS))
            .map(r -> tree(r.value()))
            .filter(e -> workspace.equals(e.path("workspace").asText()))
            .toList();
    assertThat(ofWorkspace.stream().map(e -> e.path("runid").asText()).distinct())
        .as("one run for the key, however often it is posted")
        .containsExactly(runId);
    assertThat(
            ofWorkspace.stream()
                .filter(e -> e.path("data").path("status").asText().equals("pending"))
                .count())
        .isEqualTo(1);

    await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters(marker).size() >= 3);
    Map<String, String> reasons = new LinkedHashMap<>();
    for (ConsumerRecord<String, byte[]> r : deadLetters(marker)) {
      reasons.put(new String(r.value(), StandardCharsets.UTF_8), header(r, "stagecraft-error"));
    }
    // the signature is checked before anything of the body is decoded (ADR 0061)
    assertThat(reasons)
        .hasEntrySatisfying(
            "{\"not\":\"signed\",\"marker\":\"" + marker + "\"}",
            reason -> assertThat(reason).startsWith("unauthorized:").contains("not signed"));
    assertThat(reasons)
        .hasEntrySatisfying(
            notAnEvent,
            reason -> assertThat(reason).startsWith("malformed:").contains("Not a CloudEvent"));
    assertThat(reasons)
        .hasEntrySatisfying(
            unsigned,
            reason ->
                assertThat(reason)
                    .startsWith("unauthorized:")
                    .contains("does not verify for tenant " + tenant));
    assertThat(reasons.values()).noneMatch(r -> r.contains(secret));
    assertThat(transitionsOf(runIdFor(tenant, "forged-" + marker))).isEmpty();
  }

  static List<ConsumerRecord<String, byte[]>> deadLetters(String marker) {
    return poll().stream()
        .filter(r -> r.topic().equals("stagecraft.dead-letter"))
        .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains(marker))
        .toList();
  }

  static String header(ConsumerRecord<String, byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  HttpResponse<String> webhook(String body, long timestamp, String signature) throws Exception {
    return webhook(stack, body, timestamp, signature);
  }

  HttpResponse<String> webhook(SharedStack target, String body, long timestamp, String signature)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(target.plannerUrl() + "/api/v1/hooks/run-requests"))
            .header("Content-Type", "application/cloudevents+json")
            .header("stagecraft-timestamp", Long.toString(timestamp))
            .header("stagecraft-signature", signature)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  int runStatusCode(String runId) throws Exception {
    return getRun(stack, runId).statusCode();
  }

  @Test
  void theWebhookRunsASignedTriggerAndRefusesBadSignaturesAndOldTimestamps() throws Exception {
    String marker = UUID.randomUUID().toString().substring(0, 8);
    long now = Instant.now().getEpochSecond();

    String forged = event("hook-" + marker, "bad-" + marker, "bad-" + marker);
    HttpResponse<String> bad = webhook(forged, now, sign("sct_guessed", now, forged));
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(401);
    assertThat(bad.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    assertThat(bad.body()).contains("does not verify");

    String stale = event("hook-" + marker, "old-" + marker, "old-" + marker);
    long old = now - 600;
    HttpResponse<String> replayed = webhook(stale, old, sign(secret, old, stale));
    assertThat(replayed.statusCode()).as(replayed.body()).isEqualTo(401);
    assertThat(replayed.body()).contains("replay protection");

    String good = event("hook-" + marker, "ok-" + marker, "ok-" + marker);
    HttpResponse<String> accepted = webhook(good, now, sign(secret, now, good));
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
    JsonNode answer = EventCodec.mapper().readTree(accepted.body());
    String runId = answer.get("run_id").asText();
    assertThat(runId).isEqualTo(runIdFor(tenant, "ok-" + marker));
    assertThat(answer.get("duplicate").asBoolean()).isFalse();
    awaitTransition(runId, "applied");

    HttpResponse<String> again = webhook(good, now, sign(secret, now, good));
    assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
    assertThat(EventCodec.mapper().readTree(again.body()).get("run_id").asText()).isEqualTo(runId);
    assertThat(EventCodec.mapper().readTree(again.body()).get("duplicate").asBoolean()).isTrue();

    assertThat(runStatusCode(runId)).isEqualTo(200);
    assertThat(runStatusCode(runIdFor(tenant, "bad-" + marker))).isEqualTo(404);
    assertThat(runStatusCode(runIdFor(tenant, "old-" + marker))).isEqualTo(404);
    List<String> pendingRuns = new ArrayList<>();
    poll().stream()
        .filter(r -> r.topic().equals(Topics.RUN_EVENTS))
        .map(r -> tree(r.value()))
        .filter(e -> ("hook-" + marker).equals(e.path("workspace").asText()))
        .filter(e -> e.path("data").path("status").asText().equals("pending"))
        .forEach(e -> pendingRuns.add(e.path("runid").asText()));
    assertThat(pendingRuns).containsExactly(runId);
  }

  @Test
  void
      aDuplicateAfterAPlannerRestartRefersToTheFirstRunAndStartsNothingAndADecisionIsAnsweredAsItWas()
          throws Exception {
    SharedStack own = SharedStack.dedicated("chatops-restart", Map.of());
    try {
      HttpResponse<String> issued =
          http.send(
              HttpRequest.newBuilder(URI.create(own.plannerUrl() + "/api/v1/hooks/secret"))
                  .header("Authorization", "Bearer " + own.token())
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
      String ownSecret = EventCodec.mapper().readTree(issued.body()).get("secret").asText();
      String marker = UUID.randomUUID().toString().substring(0, 8);
      String body = event("restart-" + marker, "k-" + marker, marker);

      JsonNode first = postSigned(own, body, ownSecret);
      assertThat(first.get("duplicate").asBoolean()).isFalse();
      String runId = first.get("run_id").asText();
      await().atMost(Duration.ofSeconds(90)).until(() -> terminalStatus(own, runId) != null);
      // a run waiting for approval, discarded by a bot over the webhook
      createWorkspaceWithoutAutoApply(own, "gated-" + marker);
      String waiting =
          postSigned(own, event("gated-" + marker, "g-" + marker, marker), ownSecret)
              .get("run_id")
              .asText();
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  "planned"
                      .equals(
                          EventCodec.mapper()
                              .readTree(getRun(own, waiting).body())
                              .path("status")
                              .asText()));
      String discard = decision(waiting, "discard", null, marker);
      long signedAt = Instant.now().getEpochSecond();
      String signature = sign(ownSecret, signedAt, discard);
      HttpResponse<String> discarded = webhook(own, discard, signedAt, signature);
      assertThat(discarded.statusCode()).as(discarded.body()).isEqualTo(202);
      assertThat(terminalStatus(own, waiting)).isEqualTo("discarded");

      own.restart(); // same data directory: Kafka's log and PostgreSQL survive

      // the decision taken before the restart (recorded in PostgreSQL) is answered as it was, not
      // refused because the run no longer waits (docs/adr/0055)
      HttpResponse<String> retried = webhook(own, discard, signedAt, signature);
      assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
      assertThat(retried.body()).isEqualTo(discarded.body());

      // the secret (sealed in its compacted topic) and the key (in PostgreSQL) both survived
      JsonNode again = postSigned(own, body, ownSecret);
      assertThat(again.get("duplicate").asBoolean()).as(again.toString()).isTrue();
      assertThat(again.get("run_id").asText()).isEqualTo(runId);
      HttpResponse<String> runs =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(own.plannerUrl() + "/api/v1/runs?workspace=restart-" + marker))
                  .header("Authorization", "Bearer " + own.token())
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(runs.statusCode()).as(runs.body()).isEqualTo(200);
      long runsOfWorkspace =
          java.util.stream.StreamSupport.stream(
                  EventCodec.mapper().readTree(runs.body()).spliterator(), false)
              .filter(r -> ("restart-" + marker).equals(r.path("workspace").asText()))
              .count();
      assertThat(runsOfWorkspace).as(runs.body()).isLessThanOrEqualTo(1);
    } finally {
      own.stop();
    }
  }

  /** Creates {@code name} on {@code target} with {@code autoApply: false}: its runs wait. */
  void createWorkspaceWithoutAutoApply(SharedStack target, String name) throws Exception {
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(URI.create(target.plannerUrl() + "/api/v1/workspaces"))
                .header("Authorization", "Bearer " + target.token())
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"" + name + "\",\"autoApply\":false}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
  }

  JsonNode postSigned(SharedStack target, String body, String withSecret) throws Exception {
    long now = Instant.now().getEpochSecond();
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(target.plannerUrl() + "/api/v1/hooks/run-requests"))
                .header("Content-Type", "application/json")
                .header("stagecraft-timestamp", Long.toString(now))
                .header("stagecraft-signature", sign(withSecret, now, body))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    return EventCodec.mapper().readTree(r.body());
  }

  HttpResponse<String> getRun(SharedStack target, String runId) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(target.plannerUrl() + "/api/v1/runs/" + runId))
            .header("Authorization", "Bearer " + target.token())
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The run's status once terminal, else null. */
  String terminalStatus(SharedStack target, String runId) throws Exception {
    HttpResponse<String> r = getRun(target, runId);
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode run = EventCodec.mapper().readTree(r.body());
    return run.path("terminal").asBoolean() ? run.path("status").asText() : null;
  }

  static String decision(String runId, String decision, String digest, String marker)
      throws Exception {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("run_id", runId);
    data.put("decision", decision);
    if (digest != null) {
      data.put("plan_digest", digest);
    }
    data.put("requested_by", "alice");
    data.put("comment", "from the test " + marker);
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("specversion", "1.0");
    envelope.put("id", "dec-" + marker + "-" + UUID.randomUUID());
    envelope.put("source", "/bots/slack");
    envelope.put("type", "dev.stagecraft.run.decision-requested");
    envelope.put("tenant", tenant);
    envelope.put("data", data);
    return EventCodec.mapper().writeValueAsString(envelope);
  }

  /** Sends {@code body} to the trigger topic, signed now with the tenant's secret. */
  static void produceSigned(String body) throws Exception {
    Properties p = stack.kafka("trigger"); // a bot's principal
    try (var producer =
        new org.apache.kafka.clients.producer.KafkaProducer<String, String>(
            p,
            new org.apache.kafka.common.serialization.StringSerializer(),
            new org.apache.kafka.common.serialization.StringSerializer())) {
      long now = Instant.now().getEpochSecond();
      var record =
          new org.apache.kafka.clients.producer.ProducerRecord<String, String>(
              Topics.RUN_REQUESTS, "chatops", body);
      record
          .headers()
          .add("stagecraft-timestamp", Long.toString(now).getBytes(StandardCharsets.UTF_8));
      record
          .headers()
          .add("stagecraft-signature", sign(secret, now, body).getBytes(StandardCharsets.UTF_8));
      producer.send(record).get(30, TimeUnit.SECONDS);
    }
  }

  /** The run's run.transitioned event to {@code status}, once it arrived. */
  static JsonNode awaitTransition(String runId, String status) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                transitionsOf(runId).stream()
                    .filter(e -> e.path("data").path("status").asText().equals(status))
                    .findFirst()
                    .orElse(null),
            java.util.Objects::nonNull);
  }

  JsonNode run(String runId) throws Exception {
    HttpResponse<String> r = getRun(stack, runId);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return EventCodec.mapper().readTree(r.body());
  }

  @Test
  void aBotApprovesAWaitingRunOverKafkaAndDiscardsOneOverTheWebhook() throws Exception {
    String marker = UUID.randomUUID().toString().substring(0, 8);
    String workspace = "gate-" + marker;
    createWorkspaceWithoutAutoApply(stack, workspace);

    // a triggered run on a workspace without auto-apply waits, and its planned event says for what
    String runId =
        postSigned(stack, event(workspace, "one-" + marker, "one-" + marker), secret)
            .get("run_id")
            .asText();
    JsonNode planned = awaitTransition(runId, "planned");
    String digest = planned.path("data").path("planDigest").asText();
    assertThat(digest).isNotBlank();
    assertThat(planned.path("data").path("approvalExpiresAt").asText()).isNotBlank();

    // another plan's digest: dead-lettered with the reason, the run still waits
    produceSigned(decision(runId, "approve", "sha256:not-this-plan", marker));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                deadLetters(marker).stream()
                    .map(r -> header(r, "stagecraft-error"))
                    .anyMatch(
                        reason -> reason != null && reason.contains("is not the plan of run")));
    assertThat(run(runId).path("status").asText()).isEqualTo("planned");

    // the digest shown: the run applies that plan, and its record says who approved it
    produceSigned(decision(runId, "approve", digest, marker));
    awaitTransition(runId, "applied");
    assertThat(run(runId).path("approvedBy").asText()).isEqualTo("alice via /bots/slack@" + tenant);

    // over the webhook: discard a second waiting run; a second discard and an unknown run refused
    String second =
        postSigned(stack, event(workspace, "two-" + marker, "two-" + marker), secret)
            .get("run_id")
            .asText();
    awaitTransition(second, "planned");
    String discard = decision(second, "discard", null, marker);
    long now = Instant.now().getEpochSecond();
    HttpResponse<String> discarded = webhook(discard, now, sign(secret, now, discard));
    assertThat(discarded.statusCode()).as(discarded.body()).isEqualTo(202);
    assertThat(EventCodec.mapper().readTree(discarded.body()).path("status").asText())
        .isEqualTo("discarded");
    assertThat(run(second).path("status").asText()).isEqualTo("discarded");
    // the same event again (a retry): the same answer, nothing decided twice
    HttpResponse<String> retried = webhook(discard, now, sign(secret, now, discard));
    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
    assertThat(retried.body()).isEqualTo(discarded.body());
    // a new discard: the run no longer waits
    String anotherDiscard = decision(second, "discard", null, marker);
    HttpResponse<String> again = webhook(anotherDiscard, now, sign(secret, now, anotherDiscard));
    assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
    assertThat(again.body()).contains("is not waiting for approval");
    String unknown = decision("run-" + UUID.randomUUID(), "discard", null, marker);
    HttpResponse<String> none = webhook(unknown, now, sign(secret, now, unknown));
    assertThat(none.statusCode()).as(none.body()).isEqualTo(404);
  }
}
