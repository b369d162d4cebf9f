package dev.stagecraft.devstack;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker + controller), started in this JVM
 * from the Maven Central artifacts. The log directory is formatted once and reused, so topics and
 * offsets survive a restart when the same directory is given again.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private final KafkaRaftServer server;
  private final String bootstrapServers;

  private EmbeddedKafka(KafkaRaftServer server, String bootstrapServers) {
    this.server = server;
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * Formats {@code logDir} if needed and starts the broker.
   *
   * @param port the client port, or 0 for a free one
   */
  public static EmbeddedKafka start(Path logDir, int port) throws Exception {
    Files.createDirectories(logDir);
    int brokerPort = port == 0 ? freePort() : port;
    int controllerPort = freePort();
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("log.dirs", logDir.toAbsolutePath().toString());
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "4");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("num.partitions", "4");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("auto.create.topics.enable", "false");
    // No log.flush.interval.messages: flushing is left to the operating system, as by Kafka's
    // default and in the compose broker (ADR 0046). A killed broker loses nothing (the page cache
    // keeps what it appended); a crash of the machine can lose the appends the kernel had not
    // written back yet (the dev stack's PostgreSQL, synchronous_commit off, its last commits).
    KafkaConfig config = new KafkaConfig(props, false);
    if (!Files.exists(logDir.resolve("meta.properties"))) {
      new Formatter()
          .setNodeId(1)
          .setClusterId(Uuid.randomUuid().toString())
          .setDirectories(List.of(logDir.toAbsolutePath().toString()))
          .setMetadataLogDirectory(logDir.toAbsolutePath().toString())
          .setControllerListenerName("CONTROLLER")
          .setReleaseVersion(MetadataVersion.latestProduction())
          .setIgnoreFormatted(true)
          .setPrintStream(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))
          .run();
    }
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    return new EmbeddedKafka(server, "127.0.0.1:" + brokerPort);
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}
