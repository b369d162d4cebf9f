package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.Topics;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The dev stack's broker checked with Kafka's own console producer ({@code
 * org.apache.kafka.tools.ConsoleProducer} from the {@code kafka-tools} artifact, in a JVM of its
 * own with only Kafka's jars), as an operator or an attacker on the machine would: without
 * credentials nothing can be written to {@code stagecraft.actions}, the executor's credentials
 * cannot write it either (TopicAuthorizationException), and a bot with the {@code trigger}
 * credentials file the dev stack writes ({@code kafka-users/trigger.properties}) sends run
 * requests. Every write attempt is checked against the topic's end offsets, read as the
 * administrator.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaConsoleToolsTest {
  private Path dir;
  private DevStackLayout layout;
  private DevKafka kafka;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-console");
    layout = new DevStackLayout(dir.resolve("data"));
    kafka = DevKafka.start(layout, 0);
  }

  @AfterAll
  void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void aProducerWithoutCredentialsIsRefusedAndWritesNoDispatch() throws Exception {
    long before = endOffsets(Topics.ACTIONS);

    Result r = consoleProducer(null, Topics.ACTIONS, "run-x/null_resource.a\t{\"forged\":true}");

    assertThat(r.exitCode()).as(r.output()).isNotZero();
    // the broker hangs up on a client that does not authenticate: it never learns of the topic
    assertThat(r.output())
        .contains("TimeoutException: Topic " + Topics.ACTIONS + " not present in metadata");
    assertThat(endOffsets(Topics.ACTIONS)).isEqualTo(before);
  }

  @Test
  void aProducerWithTheExecutorsCredentialsCannotWriteDispatches() throws Exception {
    long before = endOffsets(Topics.ACTIONS);

    Result r =
        consoleProducer(
            layout.kafkaClientPropertiesFile("executor"),
            Topics.ACTIONS,
            "run-x/null_resource.a\t{\"forged\":true}");

    assertThat(r.exitCode()).as(r.output()).isNotZero();
    assertThat(r.output()).contains("TopicAuthorizationException").contains(Topics.ACTIONS);
    assertThat(endOffsets(Topics.ACTIONS)).isEqualTo(before);
  }

  @Test
  void aBotWithTheTriggerCredentialsSendsRunRequests() throws Exception {
    long before = endOffsets(Topics.RUN_REQUESTS);

    Result r =
        consoleProducer(
            layout.kafkaClientPropertiesFile("trigger"),
            Topics.RUN_REQUESTS,
            "slack-1\t{\"specversion\":\"1.0\"}",
            "slack-2\t{\"specversion\":\"1.0\"}");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(endOffsets(Topics.RUN_REQUESTS)).isEqualTo(before + 2);
  }

  @Test
  void theSettingsDocsChatopsTellsBotOwnersToUseAreThoseOfTheFileTheDevStackWrites()
      throws Exception {
    String docs = Files.readString(TestRepo.root().resolve("docs/chatops.md"));
    int start = docs.indexOf("```properties\n");
    assertThat(start).as("a properties block in docs/chatops.md").isNotNegative();
    String block = docs.substring(start + 14, docs.indexOf("```", start + 14));
    String password = Files.readString(layout.kafkaPasswordFile("trigger")).strip();

    List<String> documented =
        block
            .replace("<the trigger password>", password)
            .lines()
            .filter(l -> !l.isBlank())
            .toList();

    assertThat(documented).hasSize(3);
    assertThat(Files.readAllLines(layout.kafkaClientPropertiesFile("trigger")))
        .containsAll(documented);
  }

  /** The sum of the latest offsets of the topic's partitions, as the administrator sees them. */
  private long endOffsets(String topic) throws Exception {
    try (Admin admin = Admin.create(kafka.settings(StackPrincipal.ADMIN).client())) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
          .mapToLong(o -> o.offset())
          .sum();
    }
  }

  private record Result(int exitCode, String output) {}

  /**
   * Runs the console producer in its own JVM (Stagecraft's classes left out of its class path) with
   * {@code lines} on stdin, keys before a tab; {@code commandConfig} is its client settings file,
   * or null for none. It waits for each record's acknowledgement and gives up after 10 s.
   */
  private Result consoleProducer(Path commandConfig, String topic, String... lines)
      throws Exception {
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> e.endsWith(".jar") && !e.contains("/dev/stagecraft/"))
            .collect(Collectors.joining(File.pathSeparator));
    assertThat(classPath).contains("kafka-tools-");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                "org.apache.kafka.tools.ConsoleProducer",
                "--bootstrap-server",
                kafka.bootstrapServers(),
                "--topic",
                topic,
                "--sync",
                "--max-block-ms",
                "10000",
                "--reader-property",
                "parse.key=true"));
    if (commandConfig != null) {
      command.addAll(List.of("--command-config", commandConfig.toString()));
    }
    Path log = Files.createTempFile(dir, "console-producer", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try (var stdin = process.getOutputStream()) {
      stdin.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("console producer exits").isTrue();
    return new Result(process.exitValue(), Files.readString(log));
  }
}
