package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.schemas.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A hostile tenant on the real stack, configured as a multi-tenant installation is (sandboxed
 * local-exec without shared paths, Kafka and every internal API authenticated, PostgreSQL with a
 * password). While tenant A's action runs — holding A's secret in a file of its working directory —
 * tenant B's deployer runs one action whose steps each try to get at something: the environment,
 * other processes, the executor's files, A's files, signals, Kafka, the internal APIs, PostgreSQL,
 * the executor's SSH material. Every attempt fails, the test checks what each printed, and no
 * secret of A's or of the platform's appears anywhere B can read: its run's log and events, its
 * state, the Kafka records of its tenant. (Kafka with the broker's own console tools, a client
 * without credentials and one with the executor's: KafkaConsoleToolsTest.)
 */
class HostileTenantTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static SharedStack stack;
  static String tenantA;
  static String tenantB;
  static String tokenA;
  static String tokenB;
  static final String SECRET_A = "tenant-a-secret-" + UUID.randomUUID();

  @BeforeAll
  static void start() throws Exception {
    // no shared path: as a multi-tenant installation runs (SharedStack gives one otherwise)
    stack =
        SharedStack.dedicated("hostile", Map.of("STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS", ""));
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    tenantA = "victim-" + suffix;
    tenantB = "attacker-" + suffix;
    tokenA = RunLogsTest.tokenForNewTenant(stack, tenantA, "deployer");
    tokenB = RunLogsTest.tokenForNewTenant(stack, tenantB, "deployer");
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.stop();
    }
  }

  @Test
  void tenantBsCommandsGetNothingOfTenantAsOrThePlatformsAndEveryAttemptFails() throws Exception {
    String runA = startRun(tokenA, "prod", victimConfiguration(), Map.of("secret", SECRET_A));
    awaitLine(tokenA, runA, "a-ready");
    long victimPid =
        ProcessHandle.allProcesses()
            .filter(p -> p.info().commandLine().orElse("").contains("sleep 40"))
            .findFirst()
            .orElseThrow()
            .pid();

    String runB = startRun(tokenB, "loot", attackerConfiguration(victimPid), Map.of());
    JsonNode endedB = awaitEnd(tokenB, runB);
    Map<String, String> steps = stepOutputs(tokenB, runB);

    assertThat(endedB.path("status").asText()).isEqualTo("applied"); // every step went on
    assertEnvironment(steps.get("env"));
    assertProcesses(steps.get("proc"), victimPid);
    assertNoFile(steps.get("executor-files"));
    assertNoFile(steps.get("other-action"));
    assertThat(steps.get("other-action")).doesNotContain(SECRET_A);
    assertThat(steps.get("signal"))
        .contains("kill-victim=1")
        .contains("kill-executor=1")
        .contains("No such process");
    assertThat(steps.get("kafka"))
        .contains("metadata: closed without an answer")
        .contains("produce stagecraft.actions: closed without an answer");
    assertInternalApisRefuse(steps.get("internal-apis"));
    assertThat(steps.get("postgres"))
        .contains("password authentication failed")
        .doesNotContain("(1 row)");
    assertThat(steps.get("ssh"))
        .doesNotContain("PRIVATE KEY")
        .containsPattern("(No such file or directory|Permission denied)");
    assertThat(steps.get("id")).doesNotContain("uid=0(").contains("(stagecraft)");

    // A's run went on untouched and applied; nothing of A's or the platform's reached B
    assertThat(awaitEnd(tokenA, runA).path("status").asText()).isEqualTo("applied");
    List<String> secrets = platformSecrets();
    secrets.add(SECRET_A);
    assertThat(secrets).hasSizeGreaterThan(8);
    Map<String, String> seenByB = new LinkedHashMap<>();
    seenByB.put("B's run", get(tokenB, "/api/v1/runs/" + runB).body());
    seenByB.put("B's log", get(tokenB, "/api/v1/runs/" + runB + "/events?after=0&wait=0").body());
    seenByB.put("B's state", state(tokenB, "loot"));
    seenByB.put("B's Kafka records", kafkaRecordsOf(tenantB));
    seenByB.put("A's run as B", get(tokenB, "/api/v1/runs/" + runA).body());
    for (Map.Entry<String, String> seen : seenByB.entrySet()) {
      for (String secret : secrets) {
        assertThat(seen.getValue()).as(seen.getKey()).doesNotContain(secret);
      }
    }
    assertThat(seenByB.get("B's Kafka records")).contains(runB); // the scan read B's records
  }

  static String victimConfiguration() {
    return """
        variable "secret" {
          sensitive = true
        }

        resource "terraform_data" "holder" {
          input = var.secret
          provisioner "local-exec" {
            command     = "printf '%s' \\"$SECRET\\" > secret.txt; echo a-ready; sleep 40"
            environment = { SECRET = var.secret }
          }
        }
        """;
  }

  /** One step per attempt, each printing {@code == name} first, all of them run. */
  static String attackerConfiguration(long victimPid) throws Exception {
    Path data = stack.dataDir;
    long executor = ExecutorProcess.stackExecutor(stack).pid();
    Path executorCwd = Files.readSymbolicLink(Path.of("/proc/" + executor + "/cwd"));
    String kafka = stack.stack().info().kafka();
    String kafkaPort = kafka.substring(kafka.lastIndexOf(':') + 1);
    String pgUrl = stack.stack().info().postgres(); // jdbc:postgresql://localhost:PORT/...
    String pgPort = pgUrl.replaceAll(".*:(\\d+)/.*", "$1");
    String state = stack.stack().info().state();
    String lock = stack.stack().info().lock();
    Map<String, String> attempts = new LinkedHashMap<>();
    attempts.put("env", "env");
    attempts.put(
        "proc",
        "ls -d /proc/[0-9]* | wc -l; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do echo"
            + " \"$f: $(tr '\\0' ' ' < $f)\"; done; cat /proc/"
            + victimPid
            + "/environ /proc/"
            + executor
            + "/environ");
    attempts.put(
        "executor-files",
        "ls "
            + executorCwd
            + "; ls "
            + data
            + "; cat "
            + data.resolve("secrets-keys")
            + " "
            + data.resolve("postgres-password")
            + " "
            + new DevStackLayout(data).serviceTokenFile(ServiceRole.PLANNER)
            + " "
            + new DevStackLayout(data).kafkaPasswordFile("executor")
            + "; ls /proc/"
            + executor
            + "/root/");
    attempts.put(
        "other-action",
        "ls /run/stagecraft/sandbox/sessions; cat /run/stagecraft/sandbox/sessions/*/work/secret.txt;"
            + " cat /proc/"
            + victimPid
            + "/cwd/secret.txt");
    attempts.put(
        "signal",
        "kill -9 "
            + victimPid
            + "; echo kill-victim=$?; kill -9 "
            + executor
            + "; echo kill-executor=$?");
    attempts.put("kafka", "python3 -c '" + kafkaProbe(kafkaPort) + "'");
    attempts.put("internal-apis", internalApiProbe(state, lock));
    attempts.put(
        "postgres",
        "PGPASSWORD=postgres psql -h 127.0.0.1 -p "
            + pgPort
            + " -U postgres -d postgres -c \"select 1\" 2>&1; psql -w -h 127.0.0.1 -p "
            + pgPort
            + " -U postgres -d postgres -c \"select 1\" 2>&1");
    attempts.put(
        "ssh",
        "ls -la /root/.ssh; cat /root/.ssh/id_* /etc/ssh/ssh_host_ed25519_key; echo"
            + " SSH_AUTH_SOCK=$SSH_AUTH_SOCK");
    attempts.put("id", "id");
    StringBuilder tf = new StringBuilder("resource \"terraform_data\" \"loot\" {\n");
    for (Map.Entry<String, String> a : attempts.entrySet()) {
      tf.append("  provisioner \"local-exec\" {\n")
          .append("    on_failure = continue\n")
          .append("    command = ")
          // one stream, so that every line follows its step's marker
          .append(
              JSON.writeValueAsString("exec 2>&1; echo '== " + a.getKey() + "'; " + a.getValue()))
          .append("\n  }\n");
    }
    return tf.append("}\n").toString();
  }

  /** A Metadata request and a Produce request to stagecraft.actions, without authenticating. */
  static String kafkaProbe(String port) {
    return "import socket,struct\n"
        + "def ask(what, key, version, body):\n"
        + "  s=socket.create_connection((\"127.0.0.1\","
        + port
        + "),5)\n"
        + "  h=struct.pack(\">hhih\",key,version,7,4)+b\"evil\"+body\n"
        + "  s.sendall(struct.pack(\">i\",len(h))+h)\n"
        + "  try:\n"
        + "    d=s.recv(4096)\n"
        + "    print(what+\": \"+(\"answered \"+str(len(d))+\" bytes\" if d else \"closed without an"
        + " answer\"))\n"
        + "  except Exception as e:\n"
        + "    print(what+\": closed without an answer (\"+str(e)+\")\")\n"
        + "ask(\"metadata\",3,0,struct.pack(\">i\",-1))\n"
        + "t=b\"stagecraft.actions\"\n"
        + "ask(\"produce stagecraft.actions\",0,3,struct.pack(\">hhi\",-1,-1,5000)+struct.pack(\">i\",1)"
        + "+struct.pack(\">h\",len(t))+t+struct.pack(\">i\",0))\n";
  }

  /** Each internal route, without a token and with guessed ones: {@code name=status} lines. */
  static String internalApiProbe(String state, String lock) {
    Map<String, String> routes = new LinkedHashMap<>();
    routes.put("mint-token", "POST " + state + "/internal/v1/tenants/" + tenantA + "/tokens");
    routes.put("list-tenants", "GET " + state + "/internal/v1/tenants");
    routes.put("verify", "POST " + state + "/internal/v1/auth/verify");
    routes.put(
        "open-run",
        "POST " + state + "/internal/v1/tenants/" + tenantA + "/workspaces/prod/run-openings");
    routes.put(
        "read-state",
        "GET " + state + "/internal/v1/tenants/" + tenantA + "/workspaces/prod/state");
    routes.put(
        "lock", "POST " + lock + "/internal/v1/tenants/" + tenantA + "/workspaces/prod/lock");
    StringBuilder sh = new StringBuilder();
    for (Map.Entry<String, String> r : routes.entrySet()) {
      String[] methodUrl = r.getValue().split(" ");
      for (String auth : List.of("none", "guess", "api-token")) {
        String header =
            switch (auth) {
              case "guess" -> " -H 'Authorization: Bearer planner'";
              case "api-token" -> " -H 'Authorization: Bearer " + tokenB + "'";
              default -> "";
            };
        sh.append("echo \"")
            .append(r.getKey())
            .append('/')
            .append(auth)
            // %%{ is HCL's escape of %{ (a template directive)
            .append("=$(curl -s -o /dev/null -w '%%{http_code}' -X ")
            .append(methodUrl[0])
            .append(header)
            .append(
                " -H 'Content-Type: application/json' -d '{\"role\":\"admin\",\"token\":\"x\"}' ")
            .append(methodUrl[1])
            .append(")\"; ");
      }
    }
    return sh.toString();
  }

  static void assertEnvironment(String env) {
    Set<String> names = new TreeSet<>();
    env.lines()
        .filter(l -> l.contains("=") && !l.startsWith("=="))
        .forEach(l -> names.add(l.substring(0, l.indexOf('='))));
    assertThat(names)
        .isSubsetOf("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TMPDIR", "PWD")
        .contains("PATH", "HOME");
    assertThat(env).doesNotContain("STAGECRAFT");
  }

  static void assertProcesses(String proc, long victimPid) {
    int visible =
        Integer.parseInt(
            proc.lines()
                .map(String::strip)
                .filter(l -> l.matches("\\d+"))
                .findFirst()
                .orElseThrow());
    assertThat(visible).as("processes the sandbox sees").isLessThan(10);
    assertThat(proc)
        .doesNotContain("STAGECRAFT")
        .doesNotContain("sleep 40")
        .doesNotContain(stack.root.toString()) // not even the executor's working directory's name
        .doesNotContain(SharedStack.repoRoot().toString())
        .contains("/proc/" + victimPid + "/environ: No such file or directory");
  }

  static void assertNoFile(String output) {
    assertThat(output).contains("No such file or directory");
    assertThat(output.lines().filter(l -> l.contains("secrets-keys")).toList())
        .allSatisfy(l -> assertThat(l).contains("No such file or directory"));
  }

  static void assertInternalApisRefuse(String output) {
    List<String> answers = output.lines().filter(l -> l.contains("/") && l.contains("=")).toList();
    assertThat(answers).hasSize(18); // 6 routes × (no token, a guess, tenant B's API token)
    assertThat(answers).allSatisfy(a -> assertThat(a).endsWith("=401"));
  }

  /** Every secret of the platform the dev stack keeps: tokens, keyring, passwords. */
  static List<String> platformSecrets() throws Exception {
    List<String> secrets = new ArrayList<>();
    Path data = stack.dataDir;
    for (ServiceRole role : ServiceRole.values()) {
      secrets.add(Files.readString(new DevStackLayout(data).serviceTokenFile(role)).strip());
    }
    for (String keyEntry : Files.readString(data.resolve("secrets-keys")).strip().split(",")) {
      secrets.add(keyEntry.substring(keyEntry.indexOf(':') + 1));
    }
    secrets.add(Files.readString(data.resolve("postgres-password")).strip());
    try (Stream<Path> users = Files.list(new DevStackLayout(data).kafkaUsersDir())) {
      for (Path f : users.filter(p -> !p.toString().endsWith(".properties")).toList()) {
        secrets.add(Files.readString(f).strip());
      }
    }
    secrets.add(tokenA);
    secrets.add(stack.token());
    return secrets;
  }

  static String startRun(
      String token, String workspace, String mainTf, Map<String, String> variables)
      throws Exception {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("workspace", workspace);
    body.put("files", Map.of("main.tf", mainTf));
    body.put("variables", variables);
    HttpResponse<String> r = send(token, "POST", "/api/v1/runs", JSON.writeValueAsString(body));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).path("id").asText();
  }

  static void awaitLine(String token, String run, String line) {
    await().atMost(Duration.ofSeconds(120)).until(() -> logLines(token, run).contains(line));
  }

  static JsonNode awaitEnd(String token, String run) throws Exception {
    await()
        .atMost(Duration.ofSeconds(180))
        .until(
            () ->
                JSON.readTree(get(token, "/api/v1/runs/" + run).body())
                    .path("terminal")
                    .asBoolean());
    return JSON.readTree(get(token, "/api/v1/runs/" + run).body());
  }

  /** What the run's commands printed (stdout and stderr; not the executor's system lines). */
  static List<String> logLines(String token, String run) throws Exception {
    JsonNode events =
        JSON.readTree(get(token, "/api/v1/runs/" + run + "/events?after=0&wait=0").body());
    List<String> lines = new ArrayList<>();
    events
        .path("events")
        .forEach(
            e -> {
              if (e.path("kind").asText().equals("log")
                  && !e.path("stream").asText().equals("system")) {
                lines.add(e.path("line").asText());
              }
            });
    return lines;
  }

  /** The output of each attempt, by the name its first line gives. */
  static Map<String, String> stepOutputs(String token, String run) throws Exception {
    Map<String, String> steps = new LinkedHashMap<>();
    String current = null;
    for (String line : logLines(token, run)) {
      if (line.startsWith("== ")) {
        current = line.substring(3);
        steps.put(current, "");
      } else if (current != null) {
        steps.merge(current, line + "\n", String::concat);
      }
    }
    assertThat(steps)
        .containsKeys(
            "env",
            "proc",
            "executor-files",
            "other-action",
            "signal",
            "kafka",
            "internal-apis",
            "postgres",
            "ssh",
            "id");
    return steps;
  }

  static String state(String token, String workspace) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create(
                        stack.stack().info().state()
                            + "/api/v1/workspaces/"
                            + workspace
                            + "/state"))
                .header("Authorization", "Bearer " + token)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  /** Every record of {@code tenant} on the topics a tenant's runs write, as text. */
  static String kafkaRecordsOf(String tenant) {
    Properties p = stack.kafka("admin");
    p.put("group.id", "hostile-scan-" + UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    StringBuilder all = new StringBuilder();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(
          List.of(Topics.ACTIONS, Topics.ACTION_EVENTS, Topics.STATE_EVENTS, Topics.RUN_EVENTS));
      int empty = 0;
      while (empty < 6) {
        var records = consumer.poll(Duration.ofMillis(500));
        empty = records.isEmpty() ? empty + 1 : 0;
        for (ConsumerRecord<String, byte[]> r : records) {
          String value = new String(r.value(), StandardCharsets.UTF_8);
          if (value.contains("\"tenant\":\"" + tenant + "\"")) {
            all.append(value).append('\n');
          }
        }
      }
    }
    return all.toString();
  }

  static HttpResponse<String> get(String token, String path) throws Exception {
    return send(token, "GET", path, null);
  }

  static HttpResponse<String> send(String token, String method, String path, String body)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(stack.plannerUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
