package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.Topics;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kafka part of docker-compose.yml, run for real without Docker (no image can be pulled here):
 * the {@code kafka} service's script starts a broker and {@code kafka-init}'s sets it up, with
 * Kafka's own tools from the Maven artifacts in place of the image's {@code /opt/kafka/bin/*.sh}
 * (the same main classes), on loopback ports instead of the compose network. The broker then holds
 * exactly {@link KafkaAccessPolicy}'s ACLs and every topic, each principal logs in with its
 * password, nobody anonymous gets in, and a second {@code up} (kafka-init again, one password
 * changed) succeeds and applies the new password.
 */
class DockerComposeKafkaTest {
  private static final List<String> USERS =
      List.of("broker", "admin", "planner", "executor", "state", "lock", "trigger");

  private Process broker;

  @AfterEach
  void stopBroker() throws Exception {
    if (broker != null) {
      broker.destroy();
      if (!broker.waitFor(30, TimeUnit.SECONDS)) {
        broker.destroyForcibly().waitFor();
      }
    }
  }

  @Test
  void kafkaInitSetsUpTheComposeBrokerWithThePolicysAclsAndEveryTopic() throws Exception {
    Map<String, Object> services = services();
    Path root = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "compose-kafka");
    int clientPort = EmbeddedKafka.freePort();
    int controllerPort = EmbeddedKafka.freePort();
    Path bin = tools(root);
    Map<String, String> passwords = new HashMap<>();
    USERS.forEach(u -> passwords.put(u, randomHex()));

    broker =
        run(
            root,
            "kafka",
            localize(script(services, "kafka"), root, "kafka-tmp", bin, clientPort, controllerPort),
            env(services, "kafka", passwords));
    String healthcheck =
        localize(healthcheck(services), root, "kafka-tmp", bin, clientPort, controllerPort);
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> !broker.isAlive() || run(root, "health", healthcheck, Map.of()).waitFor() == 0);
    assertThat(broker.isAlive()).as(Files.readString(root.resolve("kafka.log"))).isTrue();

    String init =
        localize(script(services, "kafka-init"), root, "init-tmp", bin, clientPort, controllerPort);
    assertInitSucceeds(root, init, passwords);
    String bootstrap = "127.0.0.1:" + clientPort;
    assertBrokerIsSetUp(bootstrap, passwords);

    // the next `up`: kafka-init again, with the trigger principal's password changed
    String oldTrigger = passwords.put("trigger", randomHex());
    assertInitSucceeds(root, init, passwords);
    assertBrokerIsSetUp(bootstrap, passwords);
    assertThat(authenticates(bootstrap, "trigger", oldTrigger)).isFalse();
    assertThat(Files.list(root.resolve("init-tmp")).map(Path::toString).toList())
        .as("kafka-init leaves no credentials behind")
        .noneMatch(f -> f.endsWith(".properties"));
  }

  private void assertInitSucceeds(Path root, String init, Map<String, String> passwords)
      throws Exception {
    Process p = run(root, "kafka-init", init, initEnv(passwords));
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("kafka-init ends").isTrue();
    assertThat(p.exitValue()).as(Files.readString(root.resolve("kafka-init.log"))).isZero();
  }

  private static void assertBrokerIsSetUp(String bootstrap, Map<String, String> passwords)
      throws Exception {
    for (String user : USERS) {
      assertThat(authenticates(bootstrap, user, passwords.get(user))).as(user).isTrue();
    }
    KafkaSettings admin =
        new KafkaSettings(
            bootstrap, new KafkaSettings.Credentials("admin", passwords.get("admin")));
    try (Admin client = Admin.create(admin.client())) {
      assertThat(client.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
          .containsExactlyInAnyOrderElementsOf(KafkaAccessPolicy.bindings());
      assertThat(client.listTopics().names().get(30, TimeUnit.SECONDS))
          .containsAll(TopicBootstrap.allTopics());
      ConfigResource secrets =
          new ConfigResource(ConfigResource.Type.TOPIC, Topics.TRIGGER_SECRETS);
      Config config = client.describeConfigs(List.of(secrets)).all().get().get(secrets);
      assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
    }
    assertThat(writes(bootstrap, "planner", passwords, Topics.ACTIONS)).isTrue();
    assertThat(writes(bootstrap, "executor", passwords, Topics.ACTIONS)).isFalse();
    try (Admin anonymous =
        Admin.create(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "default.api.timeout.ms",
                5_000,
                "request.timeout.ms",
                5_000))) {
      assertThatThrownBy(() -> anonymous.listTopics().names().get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
    }
  }

  private static boolean writes(
      String bootstrap, String user, Map<String, String> passwords, String topic) throws Exception {
    KafkaSettings s =
        new KafkaSettings(bootstrap, new KafkaSettings.Credentials(user, passwords.get(user)));
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(s.producer(user))) {
      producer.send(new ProducerRecord<>(topic, "k", new byte[1])).get(30, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicAuthorizationException) {
        return false;
      }
      throw e;
    }
  }

  private static boolean authenticates(String bootstrap, String user, String password)
      throws Exception {
    KafkaSettings s = new KafkaSettings(bootstrap, new KafkaSettings.Credentials(user, password));
    try (Admin admin = Admin.create(s.client())) {
      admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.AuthenticationException) {
        return false;
      }
      throw e;
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> services() throws Exception {
    Map<String, Object> compose =
        new Yaml().load(Files.readString(TestRepo.root().resolve("docker-compose.yml")));
    return (Map<String, Object>) compose.get("services");
  }

  @SuppressWarnings("unchecked")
  private static String script(Map<String, Object> services, String service) {
    Map<String, Object> s = (Map<String, Object>) services.get(service);
    assertThat((List<String>) s.get("entrypoint")).containsExactly("/bin/bash", "-c");
    return ((List<String>) s.get("command")).get(0);
  }

  @SuppressWarnings("unchecked")
  private static String healthcheck(Map<String, Object> services) {
    Map<String, Object> kafka = (Map<String, Object>) services.get("kafka");
    List<String> test = (List<String>) ((Map<String, Object>) kafka.get("healthcheck")).get("test");
    assertThat(test.get(0)).isEqualTo("CMD-SHELL");
    return test.get(1);
  }

  /** The service's environment as compose gives it, with {@code passwords} for the variables. */
  @SuppressWarnings("unchecked")
  private static Map<String, String> env(
      Map<String, Object> services, String service, Map<String, String> passwords) {
    Map<String, Object> environment =
        (Map<String, Object>) ((Map<String, Object>) services.get(service)).get("environment");
    Map<String, String> env = new HashMap<>();
    environment.forEach(
        (k, v) -> {
          String value = String.valueOf(v);
          if (value.startsWith("${")) {
            String user = k.replace("STAGECRAFT_KAFKA_", "").replace("_PASSWORD", "");
            value = passwords.get(user.toLowerCase(java.util.Locale.ROOT));
          }
          env.put(k, value);
        });
    return env;
  }

  private static Map<String, String> initEnv(Map<String, String> passwords) throws Exception {
    Map<String, String> env = env(services(), "kafka-init", passwords);
    assertThat(env.keySet())
        .containsExactlyInAnyOrderElementsOf(
            USERS.stream()
                .map(u -> "STAGECRAFT_KAFKA_" + u.toUpperCase(java.util.Locale.ROOT) + "_PASSWORD")
                .toList());
    return env;
  }

  /**
   * The script as it would run in its container, moved to this machine: compose's {@code $$} is
   * {@code $}, the image's tools are {@code bin}, its directories are under {@code root} ({@code
   * /tmp} one per container), and the broker listens on loopback ports.
   */
  private static String localize(
      String script, Path root, String tmp, Path bin, int clientPort, int controllerPort)
      throws Exception {
    Path tmpDir = Files.createDirectories(root.resolve(tmp));
    UnaryOperator<String> local =
        s ->
            // /tmp/ first: the paths put in below may themselves lie under /tmp
            s.replace("/tmp/", tmpDir + "/")
                .replace("$$", "$")
                .replace("/opt/kafka/bin", bin.toString())
                .replace("/var/lib/kafka/data", root.resolve("data").toString())
                .replace("kafka:9092", "127.0.0.1:" + clientPort)
                .replace("localhost:9092", "127.0.0.1:" + clientPort)
                .replace("kafka:9093", "127.0.0.1:" + controllerPort)
                .replace("://:9092", "://127.0.0.1:" + clientPort)
                .replace("://:9093", "://127.0.0.1:" + controllerPort);
    return local.apply(script);
  }

  /** {@code /opt/kafka/bin}'s scripts as this JVM's class path runs them, logging at WARN. */
  private static Path tools(Path root) throws Exception {
    Path bin = Files.createDirectories(root.resolve("bin"));
    Path logback = root.resolve("logback.xml");
    Files.writeString(
        logback,
        "<configuration><appender name=\"O\" class=\"ch.qos.logback.core.ConsoleAppender\">"
            + "<encoder><pattern>%level %logger - %msg%n</pattern></encoder></appender>"
            + "<root level=\"WARN\"><appender-ref ref=\"O\"/></root></configuration>");
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> e.endsWith(".jar") && !e.contains("/dev/stagecraft/"))
            .collect(Collectors.joining(File.pathSeparator));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Map<String, String> mains =
        Map.of(
            "kafka-storage.sh", "kafka.tools.StorageTool",
            "kafka-server-start.sh", "kafka.Kafka",
            "kafka-configs.sh", "kafka.admin.ConfigCommand",
            "kafka-acls.sh", "org.apache.kafka.tools.AclCommand",
            "kafka-topics.sh", "org.apache.kafka.tools.TopicCommand",
            "kafka-broker-api-versions.sh", "org.apache.kafka.tools.BrokerApiVersionsCommand");
    for (Map.Entry<String, String> tool : mains.entrySet()) {
      Path script = bin.resolve(tool.getKey());
      String heap = tool.getKey().equals("kafka-server-start.sh") ? "-Xmx384m" : "-Xmx128m";
      Files.writeString(
          script,
          "#!/bin/bash\nexec "
              + java
              + " "
              + heap
              + " -XX:TieredStopAtLevel=1 -Dlogback.configurationFile="
              + logback
              + " -cp '"
              + classPath
              + "' "
              + tool.getValue()
              + " \"$@\"\n");
      Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    }
    return bin;
  }

  private static Process run(Path root, String name, String script, Map<String, String> env)
      throws Exception {
    ProcessBuilder b =
        new ProcessBuilder("/bin/bash", "-c", script)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve(name + ".log").toFile()));
    b.environment().putAll(env);
    return b.start();
  }

  private static String randomHex() {
    byte[] bytes = new byte[32];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
