package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.platform.auth.ServiceRole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevStackTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path tmp;

  @BeforeAll
  static void serviceJarsAreBuilt() {
    SystemTestRepo.requireServiceJars();
  }

  @Test
  void startsEveryServiceAsItsOwnProcessAndWritesStackJsonAndThePointer() throws Exception {
    Path data = tmp.resolve("data");
    Path home = tmp.resolve("home");
    List<Long> pids;
    try (DevStack stack = DevStack.start(SystemTestRepo.options(data, home))) {
      StackInfo info = stack.info();
      for (String url : List.of(info.planner(), info.state(), info.lock(), info.executor())) {
        assertThat(status(url + "/health")).as(url).isEqualTo(200);
      }
      pids = stack.servicePids();
      assertThat(pids).hasSize(4).doesNotContain(ProcessHandle.current().pid());
      assertThat(pids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isPresent());

      StackInfo written =
          StackFiles.read(data.resolve("stack.json"), StackInfo.class).orElseThrow();
      assertThat(written).isEqualTo(info);
      assertThat(written.pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(written.kafka()).startsWith("127.0.0.1:");
      assertThat(written.postgres()).startsWith("jdbc:postgresql:");
      assertThat(written.dataDir()).isEqualTo(data.toAbsolutePath().toString());
      assertThat(written.services()).containsOnlyKeys("planner", "state", "lock", "executor");

      DevStackPointer pointer =
          StackFiles.read(home.resolve("dev-stack.json"), DevStackPointer.class).orElseThrow();
      assertThat(pointer.planner()).isEqualTo(info.planner());
      assertThat(pointer.dataDir()).isEqualTo(info.dataDir());
      for (ServiceRole role : ServiceRole.values()) {
        assertThat(Files.getPosixFilePermissions(stack.layout().serviceTokenFile(role)))
            .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      }
      assertThat(data.resolve("service-token")).doesNotExist();
      assertThat(tokenVariablesByService(pids))
          .as("the service token variables in each service process's environment")
          .containsOnly(
              Map.entry("executor-service", Set.of()),
              Map.entry("planner-service", Set.of("STAGECRAFT_SERVICE_TOKEN_PLANNER")),
              Map.entry(
                  "lock-service",
                  Set.of("STAGECRAFT_SERVICE_TOKEN_PLANNER", "STAGECRAFT_SERVICE_TOKEN_STATE")),
              Map.entry(
                  "state-service",
                  Set.of(
                      "STAGECRAFT_SERVICE_TOKEN_PLANNER",
                      "STAGECRAFT_SERVICE_TOKEN_STATE",
                      "STAGECRAFT_OPERATOR_TOKEN")));
      assertThat(Files.getPosixFilePermissions(data.resolve("secrets-keys")))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      assertThat(Files.readString(data.resolve("secrets-keys")))
          .matches("dev1:[A-Za-z0-9+/=]{44}\\n");
      for (StackService s : StackService.values()) {
        assertThat(data.resolve("logs").resolve(s.artifactId() + ".log")).isNotEmptyFile();
      }
      assertEachServiceHasOnlyItsOwnKafkaCredentials(stack, data);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(pids)
                    .allSatisfy(
                        pid ->
                            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                                .isEmpty()));
    assertThat(data.resolve("stack.json")).doesNotExist();
    assertThat(home.resolve("dev-stack.json")).doesNotExist();
  }

  /**
   * Every service process was given its own Kafka principal's password, and no other principal's
   * (read from the process's initial environment, /proc/PID/environ).
   */
  private static void assertEachServiceHasOnlyItsOwnKafkaCredentials(DevStack stack, Path data)
      throws Exception {
    DevStackLayout layout = new DevStackLayout(data);
    java.util.Map<String, String> passwords = new java.util.HashMap<>();
    for (StackPrincipal p : StackPrincipal.values()) {
      passwords.put(p.user(), Files.readString(layout.kafkaPasswordFile(p.user())).strip());
    }
    passwords.put("broker", Files.readString(layout.kafkaPasswordFile("broker")).strip());
    for (StackService s : StackService.values()) {
      String own = StackPrincipal.of(s).user();
      String environ =
          Files.readString(Path.of("/proc", Long.toString(stack.pid(s).orElseThrow()), "environ"));
      List<String> variables = List.of(environ.split("\0"));
      assertThat(variables)
          .as(s.key())
          .contains(
              "STAGECRAFT_KAFKA=" + stack.info().kafka(),
              "STAGECRAFT_KAFKA_USERNAME=" + own,
              "STAGECRAFT_KAFKA_PASSWORD=" + passwords.get(own));
      passwords.forEach(
          (user, password) -> {
            if (!user.equals(own)) {
              assertThat(environ)
                  .as(s.key() + " has the password of " + user)
                  .doesNotContain(password);
            }
          });
    }
  }

  @Test
  void refusesASecondSupervisorForTheSameDataDirectory() throws Exception {
    Path data = tmp.resolve("data");
    try (DevStack first = DevStack.start(SystemTestRepo.options(data, tmp.resolve("home")))) {
      assertThatThrownBy(() -> DevStack.start(SystemTestRepo.options(data, tmp.resolve("home2"))))
          .isInstanceOf(DevStack.AlreadyRunningException.class)
          .hasMessageContaining("already running for " + data.toAbsolutePath())
          .hasMessageContaining("supervisor pid " + first.info().pid());
      assertThat(status(first.info().planner() + "/health")).isEqualTo(200);
    }
  }

  @Test
  void keepsPostgresKafkaAndTheServiceTokensAcrossARestart() throws Exception {
    Path data = tmp.resolve("data");
    Path home = tmp.resolve("home");
    String clusterId;
    Map<ServiceRole, String> serviceTokens = new EnumMap<>(ServiceRole.class);
    String secretsKeys;
    String devToken;
    try (DevStack stack = DevStack.start(SystemTestRepo.options(data, home));
        Connection c = stack.openDatabase()) {
      c.createStatement().execute("create table devstack_marker(v text)");
      c.createStatement().execute("insert into devstack_marker values ('kept')");
      clusterId = clusterId(data);
      for (ServiceRole role : ServiceRole.values()) {
        serviceTokens.put(role, Files.readString(stack.layout().serviceTokenFile(role)));
      }
      secretsKeys = Files.readString(data.resolve("secrets-keys"));
      devToken = stack.credentials().map(DevCredentials::token).orElse(null);
    }
    try (DevStack stack = DevStack.start(SystemTestRepo.options(data, home));
        Connection c = stack.openDatabase();
        ResultSet rs = c.createStatement().executeQuery("select v from devstack_marker")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("kept");
      // the database answers nobody without its password (a guessed one, or none)
      for (String guess : new String[] {"postgres", "guess"}) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> DriverManager.getConnection(stack.info().postgres(), "postgres", guess))
            .isInstanceOf(java.sql.SQLException.class)
            .hasMessageContaining("password");
      }
      assertThat(clusterId(data)).isEqualTo(clusterId);
      for (ServiceRole role : ServiceRole.values()) {
        assertThat(Files.readString(stack.layout().serviceTokenFile(role)))
            .isEqualTo(serviceTokens.get(role));
      }
      assertThat(Files.readString(data.resolve("secrets-keys"))).isEqualTo(secretsKeys);
      // Once the state service issues tokens, the kept one must still be the dev tenant's token.
      assertThat(stack.credentials().map(DevCredentials::token).orElse(null)).isEqualTo(devToken);
    }
  }

  /**
   * Per service process (by the jar on its command line), the names of the variables in its
   * environment ({@code /proc/<pid>/environ}) that hold a service token.
   */
  private static Map<String, Set<String>> tokenVariablesByService(List<Long> pids)
      throws Exception {
    Map<String, Set<String>> byService = new HashMap<>();
    for (long pid : pids) {
      String commandLine = ProcessHandle.of(pid).orElseThrow().info().commandLine().orElse("");
      StackService service =
          Arrays.stream(StackService.values())
              .filter(s -> commandLine.contains(s.artifactId() + "-app.jar"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("not a service: " + commandLine));
      Set<String> names = new TreeSet<>();
      for (String entry :
          Files.readString(Path.of("/proc", Long.toString(pid), "environ")).split("\0")) {
        String name = entry.contains("=") ? entry.substring(0, entry.indexOf('=')) : entry;
        if (ServiceCredentials.isCredentialVariable(name)) {
          names.add(name);
        }
      }
      byService.put(service.artifactId(), names);
    }
    return byService;
  }

  private static String clusterId(Path data) throws Exception {
    Properties meta = new Properties();
    try (var in = Files.newInputStream(data.resolve("kafka").resolve("meta.properties"))) {
      meta.load(in);
    }
    return meta.getProperty("cluster.id");
  }

  private static int status(String url) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).GET().build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
