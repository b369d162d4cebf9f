package dev.stagecraft.systemtest;

import dev.stagecraft.devstack.DevStackLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One more executor-service process beside a stack's own, started from the packaged jar as the dev
 * stack starts its services, and the means to kill executors like a crash would (SIGKILL).
 */
final class ExecutorProcess implements AutoCloseable {
  static final String GROUP = "executors";
  final String instanceId;
  final Process process;

  private ExecutorProcess(String instanceId, Process process) {
    this.instanceId = instanceId;
    this.process = process;
  }

  /**
   * Starts an executor with the stack's Kafka and keyring, plus {@code settings}; no service token
   * (an executor holds none, docs/internal-api.md "Service roles").
   */
  static ExecutorProcess start(SharedStack stack, String instanceId, Map<String, String> settings)
      throws Exception {
    Path jar = SharedStack.repoRoot().resolve("executor-service/target/executor-service-app.jar");
    Path log = stack.root.resolve(instanceId + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(
                dev.stagecraft.devstack.ServiceJvm.command(
                    ProcessHandle.current().info().command().orElse("java"), jar))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
    Map<String, String> env = new HashMap<>(settings);
    env.put("STAGECRAFT_PORT", "0");
    env.putAll(stack.stack().kafkaEnv(dev.stagecraft.devstack.StackService.EXECUTOR));
    env.put("STAGECRAFT_INSTANCE_ID", instanceId);
    env.putIfAbsent("STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS", stack.shared.toString());
    Path keys = new DevStackLayout(stack.dataDir).secretsKeysFile();
    if (Files.isRegularFile(keys)) {
      env.put("STAGECRAFT_SECRETS_KEYS", Files.readString(keys).strip()); // opens sealed dispatches
    }
    builder.environment().putAll(env);
    return new ExecutorProcess(instanceId, builder.start());
  }

  /** The stack's own executor process (started by the dev stack). */
  static ProcessHandle stackExecutor(SharedStack stack) {
    return stack.stack().servicePids().stream()
        .map(pid -> ProcessHandle.of(pid).orElseThrow())
        .filter(p -> p.info().commandLine().orElse("").contains("executor-service"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the stack has no executor process"));
  }

  /** Kills a process like a crash: SIGKILL, no shutdown hooks; waits until it is gone. */
  static void killHard(ProcessHandle process) throws Exception {
    process.destroyForcibly();
    process.onExit().get(30, TimeUnit.SECONDS);
  }

  /** The group's members by client id, each with how many partitions of {@code topic} it owns. */
  static Map<String, Integer> assignments(Admin admin, String topic) throws Exception {
    ConsumerGroupDescription group =
        admin.describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP).get();
    Map<String, Integer> owned = new HashMap<>();
    group
        .members()
        .forEach(
            m ->
                owned.merge(
                    m.clientId(),
                    (int)
                        m.assignment().topicPartitions().stream()
                            .filter(tp -> tp.topic().equals(topic))
                            .count(),
                    Integer::sum));
    return owned;
  }

  /**
   * True when the group has committed, on every partition of {@code topic}, the end offset: every
   * record was consumed (and, for dispatches, claimed or run) by some member.
   */
  static boolean consumedEverything(Admin admin, String topic) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get()
        .get(topic)
        .partitions()
        .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
        admin.listOffsets(latest).all().get();
    for (var end : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(end.getKey());
      long done = c == null ? 0 : c.offset();
      if (done < end.getValue().offset()) {
        return false;
      }
    }
    return true;
  }

  /** Stops it like a service stop (SIGTERM, then SIGKILL after 30 s). */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
