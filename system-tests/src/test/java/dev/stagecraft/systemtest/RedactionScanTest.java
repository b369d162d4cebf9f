package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 4's redaction test: a sensitive variable, used in a {@code local-exec} command that echoes
 * it (directly and through its environment), in a sensitive output, in a stateful attribute derived
 * from it and directly in resource attributes ({@code triggers}, {@code input}: sealed, ADR 0024),
 * goes through plan (human, {@code -json}, {@code -out}), apply of the saved plan, {@code state
 * pull} and {@code state show}; a second plan with the same value has no changes and a changed
 * value replaces (and is applied). A fake private key file in the configuration directory travels
 * with every request and is uploaded as a configuration version (sealed at rest). Then everything
 * the system wrote is read back — every record of every {@code stagecraft.*} topic as raw bytes
 * (dead letters included), the saved plan and the configuration directory, every CLI output, every
 * run's journal from the events endpoint, every row of every table of the database (current state,
 * every state event and every run's recorded journal), and every service log file — and none may
 * contain the value in clear or in base64. {@code (sensitive value)} must show where the value
 * would have been, so the test also fails if output vanished.
 */
class RedactionScanTest {
  static SharedStack stack;

  static final String CONFIG =
      """
      variable "secret" {
        type      = string
        sensitive = true
      }
      variable "rev" {
        default = "r1"
      }
      resource "stateful_provisioning" "app" {
        state_key = "${var.rev}-${sha256(var.secret)}"
        triggers  = { pw = var.secret, plain = "visible" }
        provisioner "local-exec" {
          command     = "echo direct=${var.secret}; echo via-env=$SCAN_SECRET"
          environment = { SCAN_SECRET = var.secret }
        }
      }
      resource "terraform_data" "direct" {
        input = var.secret
      }
      output "the_secret" {
        value     = var.secret
        sensitive = true
      }
      """;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  @Test
  void aSensitiveValueNeverAppearsInClearInAnyLogEventRecordPlanStateOrOutput() throws Exception {
    byte[] random = new byte[12];
    new SecureRandom().nextBytes(random);
    String secret = "scanme" + HexFormat.of().formatHex(random);
    new SecureRandom().nextBytes(random);
    String changedSecret = "scanchanged" + HexFormat.of().formatHex(random);
    new SecureRandom().nextBytes(random);
    // a fake private key, referenced by nothing: it travels with the configuration directory
    String keyMarker = "scankey" + HexFormat.of().formatHex(random);
    Path dir = stack.configDir("redaction-scan", CONFIG);
    Path keyFile = dir.resolve("keys/deploy_key");
    Files.createDirectories(keyFile.getParent());
    Files.writeString(
        keyFile, keyMarker + "\n-----END OPENSSH PRIVATE KEY-----\n", StandardCharsets.UTF_8);
    String ws = "-workspace=redaction-scan";
    Map<String, String> env = Map.of("TF_VAR_secret", secret);
    Map<String, String> scanned = new LinkedHashMap<>();

    CliResult plan = stack.cliWith(dir, env, null, "plan", ws);
    assertThat(plan.exitCode()).as(plan.all()).isZero();
    assertThat(plan.out()).contains("the_secret").contains("(sensitive value)");
    CliResult planJson = stack.cliWith(dir, env, null, "plan", ws, "-json");
    assertThat(planJson.exitCode()).as(planJson.all()).isZero();
    JsonNode jsonPlan = EventCodec.mapper().readTree(planJson.out());
    assertThat(jsonPlan.at("/output_changes/the_secret/after_sensitive").asBoolean())
        .as(planJson.out())
        .isTrue();
    CliResult saved = stack.cliWith(dir, env, null, "plan", ws, "-out=scan.plan");
    assertThat(saved.exitCode()).as(saved.all()).isZero();
    CliResult apply = stack.cliWith(dir, env, null, "apply", ws, "scan.plan");
    assertThat(apply.exitCode()).as(apply.all()).isZero();
    assertThat(apply.all())
        .contains("direct=(sensitive value)")
        .contains("via-env=(sensitive value)");
    CliResult pull = stack.cli(dir, "state", "pull", ws);
    assertThat(pull.exitCode()).as(pull.all()).isZero();
    // sensitive attribute values are stored sealed and listed as sensitive (ADR 0024)
    assertThat(pull.out())
        .contains("stateful_provisioning")
        .contains("stagecraft:sealed:v1:")
        .contains("\"visible\"")
        .doesNotContain(sha256Hex(secret));
    JsonNode pulled = EventCodec.mapper().readTree(pull.out());
    assertThat(pulled.findValues("sensitive_attributes").toString())
        .contains("state_key")
        .contains("triggers")
        .contains("input");
    CliResult show = stack.cli(dir, "state", "show", ws, "stateful_provisioning.app");
    assertThat(show.exitCode()).as(show.all()).isZero();
    assertThat(show.out()).contains("state_key").contains("(sensitive value)");
    assertThat(show.out()).doesNotContain("stagecraft:sealed");

    // the same value again: the sealed prior values are opened and compared, nothing changes
    CliResult same = stack.cliWith(dir, env, null, "plan", ws, "-detailed-exitcode");
    assertThat(same.exitCode()).as(same.all()).isZero();
    assertThat(same.out()).contains("No changes.");
    // a changed value replaces, without showing either value
    Map<String, String> changedEnv = Map.of("TF_VAR_secret", changedSecret);
    CliResult changedPlan = stack.cliWith(dir, changedEnv, null, "plan", ws, "-detailed-exitcode");
    assertThat(changedPlan.exitCode()).as(changedPlan.all()).isEqualTo(2);
    assertThat(changedPlan.out())
        .contains("stateful_provisioning.app must be replaced")
        .contains("(sensitive value)");
    CliResult changedApply = stack.cliWith(dir, changedEnv, null, "apply", ws, "-auto-approve");
    assertThat(changedApply.exitCode()).as(changedApply.all()).isZero();
    CliResult pullAgain = stack.cli(dir, "state", "pull", ws);
    assertThat(pullAgain.exitCode()).as(pullAgain.all()).isZero();
    record(scanned, "cli plan same value", same);
    record(scanned, "cli plan changed value", changedPlan);
    record(scanned, "cli apply changed value", changedApply);
    record(scanned, "cli state pull again", pullAgain);

    // the same files uploaded as a configuration version: sealed at rest, opened when read
    HttpClient http = HttpClient.newHttpClient();
    String upload =
        EventCodec.mapper()
            .writeValueAsString(
                Map.of(
                    "files",
                    Map.of("main.tf", CONFIG),
                    "supportFiles",
                    Map.of(
                        "keys/deploy_key",
                        Base64.getEncoder().encodeToString(Files.readAllBytes(keyFile)))));
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(stack.plannerUrl() + "/api/v1/configuration-versions"))
                .header("Authorization", "Bearer " + stack.token())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(upload))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isIn(200, 201);
    String versionId = EventCodec.mapper().readTree(created.body()).get("id").asText();
    JsonNode version =
        EventCodec.mapper().readTree(get(http, "/api/v1/configuration-versions/" + versionId));
    assertThat(version.at("/files/main.tf").asText()).isEqualTo(CONFIG);
    assertThat(version.get("supportFiles").toString()).contains("keys/deploy_key");

    record(scanned, "cli plan", plan);
    record(scanned, "cli plan -json", planJson);
    record(scanned, "cli plan -out", saved);
    record(scanned, "cli apply", apply);
    record(scanned, "cli state pull", pull);
    record(scanned, "cli state show", show);
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        scanned.put("file " + f, Files.readString(f));
      }
    }
    String keyFileEntry = "file " + keyFile;
    assertThat(scanned).containsKey(keyFileEntry);
    assertThat(scanned).containsKey("file " + dir.resolve("scan.plan"));
    JsonNode health = EventCodec.mapper().readTree(get(HttpClient.newHttpClient(), "/health"));
    assertThat(health.at("/details/secrets/details/sealing").asText())
        .as("the dev stack's planner seals dispatches: %s", health)
        .isEqualTo("on");
    String journals = runJournals();
    assertThat(journals).contains("direct=(sensitive value)").contains("via-env=(sensitive value)");
    scanned.put("run journals", journals);
    List<String> records = LeakScan.kafkaRecords(stack);
    assertThat(records).anyMatch(r -> r.contains("dev.stagecraft.action.dispatched"));
    assertThat(records).anyMatch(r -> r.contains("direct=(sensitive value)"));
    for (int i = 0; i < records.size(); i++) {
      String r = records.get(i);
      java.util.regex.Matcher type =
          java.util.regex.Pattern.compile("\"type\":\"([^\"]+)\"").matcher(r);
      scanned.put(
          "kafka #"
              + i
              + " "
              + r.substring(0, r.indexOf(' '))
              + (type.find() ? " " + type.group(1) : ""),
          r);
    }
    // the runs' journals are recorded too (planner.run_journal, docs/adr/0032): redacted there
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                LeakScan.databaseRows(stack)
                    .lines()
                    .anyMatch(
                        row ->
                            row.startsWith("\"planner\".\"run_journal\"")
                                && row.contains("direct=(sensitive value)")));
    scanned.put("database", LeakScan.databaseRows(stack));
    try (Stream<Path> logs = Files.walk(stack.dataDir.resolve("logs"))) {
      for (Path log : logs.filter(Files::isRegularFile).toList()) {
        scanned.put("log " + log.getFileName(), Files.readString(log));
      }
    }
    assertThat(scanned.keySet()).anyMatch(k -> k.equals("log executor-service.log"));
    assertThat(scanned.get("database")).contains("configuration_versions").contains(versionId);

    List<String> leaks = new ArrayList<>();
    scanned.forEach(
        (where, text) -> {
          leaks.addAll(LeakScan.occurrences(where, text, "secret", secret));
          leaks.addAll(LeakScan.occurrences(where, text, "changed secret", changedSecret));
          if (!where.equals(keyFileEntry)) {
            // the key file itself is the only place its content may be
            leaks.addAll(LeakScan.occurrences(where, text, "key file", keyMarker));
          }
        });
    assertThat(leaks).as("places holding a secret").isEmpty();
  }

  private static void record(Map<String, String> scanned, String what, CliResult result) {
    scanned.put(what + " stdout", result.out());
    scanned.put(what + " stderr", result.err());
  }

  private static String sha256Hex(String s) throws Exception {
    return HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  /** Every run of the dev tenant with its whole journal. */
  private static String runJournals() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    StringBuilder all = new StringBuilder();
    JsonNode runs = EventCodec.mapper().readTree(get(http, "/api/v1/runs"));
    assertThat(runs.size()).isPositive();
    for (JsonNode run : runs) {
      String id = run.get("id").asText();
      all.append(get(http, "/api/v1/runs/" + id)).append('\n');
      all.append(get(http, "/api/v1/runs/" + id + "/events?after=0&wait=0")).append('\n');
    }
    return all.toString();
  }

  private static String get(HttpClient http, String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
                .header("Authorization", "Bearer " + stack.token())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return response.body();
  }
}
