package dev.stagecraft.devstack;

import dev.stagecraft.platform.kafka.KafkaSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker + controller), started in this JVM
 * from the Maven Central artifacts. The log directory is formatted once and reused, so topics and
 * offsets survive a restart when the same directory is given again.
 *
 * <p>Started {@link #startSecured secured} (the dev stack), it answers nobody anonymous: the client
 * listener takes SASL/SCRAM-SHA-512 only, the controller listener SASL/PLAIN for the broker's own
 * principal only (KRaft keeps SCRAM credentials in its metadata, which the controller listener must
 * serve before any exists), and the StandardAuthorizer allows what an ACL or a super user allows,
 * nothing else. Started {@link #start plain}, it takes anyone, for module tests.
 */
public final class EmbeddedKafka implements AutoCloseable {
  /** The broker's own principal: the controller listener's only user, and a super user. */
  public static final String BROKER_USER = "broker";

  /** How long the SCRAM users may take to be known to the broker after they are written. */
  private static final Duration USERS_KNOWN_WITHIN = Duration.ofSeconds(30);

  private static final int SCRAM_ITERATIONS = 4096;

  private final Path logDir;
  private final int brokerPort;
  private final int controllerPort;
  private final Security security;
  private final String bootstrapServers;
  private final String controllerServers;

  /** The running server; null while {@link #stop stopped}. Guarded by {@code this}. */
  private KafkaRaftServer server;

  private EmbeddedKafka(
      KafkaRaftServer server, Path logDir, int brokerPort, int controllerPort, Security security) {
    this.server = server;
    this.logDir = logDir;
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
    this.security = security;
    this.bootstrapServers = "127.0.0.1:" + brokerPort;
    this.controllerServers = "127.0.0.1:" + controllerPort;
  }

  /**
   * How a secured broker authenticates and authorizes.
   *
   * @param brokerPassword the password of {@link #BROKER_USER}: PLAIN on the controller listener,
   *     SCRAM between brokers
   * @param users the SCRAM-SHA-512 users, name to password, written at every start (created, or
   *     their password set again); {@link #BROKER_USER} is added
   * @param superUsers user names, besides {@link #BROKER_USER}, that every ACL check allows
   */
  public record Security(String brokerPassword, Map<String, String> users, Set<String> superUsers) {
    public Security {
      users = Map.copyOf(users);
      superUsers = Set.copyOf(superUsers);
    }
  }

  /**
   * Formats {@code logDir} if needed and starts a broker that takes anyone (no authentication, no
   * authorization).
   *
   * @param port the client port, or 0 for a free one
   */
  public static EmbeddedKafka start(Path logDir, int port) throws Exception {
    return start(logDir, port, null);
  }

  /**
   * Formats {@code logDir} if needed (with the SCRAM users of {@code security}), starts a broker
   * that authenticates and authorizes every client (see the class comment), writes the users again
   * as the broker's own user (a password changed, a user added since) and returns once the broker
   * authenticates each of them. A log directory without these users (a plain broker's, or one whose
   * broker password changed) is taken over: the broker is started once more with PLAIN for its own
   * user on the client listener to write them, then started as usual. Nobody anonymous is answered
   * at any time.
   *
   * @param port the client port, or 0 for a free one
   */
  public static EmbeddedKafka startSecured(Path logDir, int port, Security security)
      throws Exception {
    return start(logDir, port, security);
  }

  private static EmbeddedKafka start(Path logDir, int port, Security security) throws Exception {
    Files.createDirectories(logDir);
    int brokerPort = port == 0 ? freePort() : port;
    int controllerPort = freePort();
    if (!Files.exists(logDir.resolve("meta.properties"))) {
      format(logDir, security);
    }
    if (security == null) {
      return launch(logDir, brokerPort, controllerPort, null, false);
    }
    EmbeddedKafka kafka = launch(logDir, brokerPort, controllerPort, security, false);
    try {
      KafkaSettings.Credentials broker =
          new KafkaSettings.Credentials(BROKER_USER, security.brokerPassword());
      Properties scram = new KafkaSettings(kafka.bootstrapServers, broker).client();
      if (authenticates(scram)) {
        writeUsers(scram, security); // passwords changed, principals added since the last start
      } else {
        // a log directory from before authentication (no SCRAM users), or a new broker password:
        // once, the broker's own user also logs in with PLAIN on the client listener to write them
        kafka.close();
        try (EmbeddedKafka setup = launch(logDir, brokerPort, controllerPort, security, true)) {
          Properties plain = new Properties();
          plain.putAll(scram);
          plain.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
          plain.put(SaslConfigs.SASL_JAAS_CONFIG, plainJaas(security));
          writeUsers(plain, security);
        }
        kafka = launch(logDir, brokerPort, controllerPort, security, false);
      }
      awaitUsersKnown(kafka.bootstrapServers, security);
      return kafka;
    } catch (Exception | Error e) {
      kafka.close();
      throw e;
    }
  }

  /**
   * Formats a new log directory; a secured one with its SCRAM users in the first metadata, so that
   * they can log in from the start.
   */
  private static void format(Path logDir, Security security) throws Exception {
    List<String> scram = new ArrayList<>();
    if (security != null) {
      users(security)
          .forEach(
              (user, password) ->
                  scram.add(
                      KafkaSettings.MECHANISM
                          + "=[name="
                          + user
                          + ",password="
                          + password
                          + ",iterations="
                          + SCRAM_ITERATIONS
                          + "]"));
    }
    new Formatter()
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .setDirectories(List.of(logDir.toAbsolutePath().toString()))
        .setMetadataLogDirectory(logDir.toAbsolutePath().toString())
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.latestProduction())
        .setScramArguments(scram)
        .setIgnoreFormatted(true)
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .run();
  }

  /**
   * Starts the broker; returns once it has caught up with its metadata (its SCRAM users among it).
   *
   * @param brokerPlain whether the client listener also takes PLAIN for the broker's own user
   */
  private static EmbeddedKafka launch(
      Path logDir, int brokerPort, int controllerPort, Security security, boolean brokerPlain) {
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put("controller.listener.names", "CONTROLLER");
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
    if (security == null) {
      plainListeners(props, brokerPort, controllerPort);
    } else {
      securedListeners(props, brokerPort, controllerPort, security, brokerPlain);
    }
    return new EmbeddedKafka(startServer(props), logDir, brokerPort, controllerPort, security);
  }

  private static KafkaRaftServer startServer(Properties props) {
    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
    server.startup();
    return server;
  }

  private static void plainListeners(Properties props, int brokerPort, int controllerPort) {
    props.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("inter.broker.listener.name", "PLAINTEXT");
  }

  private static void securedListeners(
      Properties props,
      int brokerPort,
      int controllerPort,
      Security security,
      boolean brokerPlain) {
    props.put(
        "listeners",
        "CLIENT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "CLIENT://127.0.0.1:" + brokerPort);
    props.put("listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
    props.put("inter.broker.listener.name", "CLIENT");
    props.put("sasl.mechanism.controller.protocol", "PLAIN");
    props.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
    // server side (user_broker) and client side (username, password) of the controller listener
    props.put("listener.name.controller.plain.sasl.jaas.config", plainJaas(security));
    props.put(
        "listener.name.client.scram-sha-512.sasl.jaas.config",
        new KafkaSettings.Credentials(BROKER_USER, security.brokerPassword()).jaasConfig());
    if (brokerPlain) {
      props.put("listener.name.client.sasl.enabled.mechanisms", KafkaSettings.MECHANISM + ",PLAIN");
      props.put("listener.name.client.plain.sasl.jaas.config", plainJaas(security));
      props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
    } else {
      props.put("listener.name.client.sasl.enabled.mechanisms", KafkaSettings.MECHANISM);
      props.put("sasl.mechanism.inter.broker.protocol", KafkaSettings.MECHANISM);
    }
    props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    props.put("allow.everyone.if.no.acl.found", "false");
    Set<String> superUsers = new TreeSet<>(security.superUsers());
    superUsers.add(BROKER_USER);
    props.put("super.users", String.join(";", superUsers.stream().map(u -> "User:" + u).toList()));
  }

  private static String plainJaas(Security security) {
    String password =
        new KafkaSettings.Credentials(BROKER_USER, security.brokerPassword()).password();
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + BROKER_USER
        + "\" password=\""
        + password
        + "\" user_"
        + BROKER_USER
        + "=\""
        + password
        + "\";";
  }

  /** Whether the broker takes {@code client}'s credentials (it has caught up with its users). */
  private static boolean authenticates(Properties client) throws Exception {
    try (Admin admin = Admin.create(client)) {
      admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthenticationException) {
        return false;
      }
      throw e;
    }
  }

  /** Creates the SCRAM users, or sets their passwords again, as the broker's own user. */
  private static void writeUsers(Properties brokerClient, Security security) throws Exception {
    List<UserScramCredentialAlteration> upserts = new ArrayList<>();
    for (Map.Entry<String, String> user : users(security).entrySet()) {
      upserts.add(
          new UserScramCredentialUpsertion(
              user.getKey(),
              new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS),
              user.getValue()));
    }
    try (Admin admin = Admin.create(brokerClient)) {
      admin.alterUserScramCredentials(upserts).all().get(30, TimeUnit.SECONDS);
    }
  }

  private static Map<String, String> users(Security security) {
    Map<String, String> all = new TreeMap<>(security.users());
    all.put(BROKER_USER, security.brokerPassword());
    return all;
  }

  /** Returns once the broker authenticates every user (it learns them from the metadata log). */
  private static void awaitUsersKnown(String bootstrapServers, Security security)
      throws InterruptedException {
    long deadline = System.nanoTime() + USERS_KNOWN_WITHIN.toNanos();
    for (Map.Entry<String, String> user : users(security).entrySet()) {
      KafkaSettings settings =
          new KafkaSettings(
              bootstrapServers, new KafkaSettings.Credentials(user.getKey(), user.getValue()));
      while (true) {
        // a client whose authentication failed waits before it tries again: a new one each time
        try (Admin admin = Admin.create(settings.client())) {
          admin.describeCluster().clusterId().get();
          break;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof AuthenticationException) || System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "the embedded broker did not authenticate user "
                    + user.getKey()
                    + " within "
                    + USERS_KNOWN_WITHIN.toSeconds()
                    + " s of writing it: "
                    + e.getCause(),
                e.getCause());
          }
        }
        Thread.sleep(50); // the broker applies the metadata a moment after the controller
      }
    }
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The controller listener ({@code bootstrap.controllers}); secured, only the broker's own. */
  public String controllerServers() {
    return controllerServers;
  }

  /**
   * Stops the broker (a controlled shutdown: its partitions' logs are closed cleanly, its listeners
   * and their ports released) and keeps what it needs to {@link #startAgain start again}, as an
   * operator's broker restart would. Clients keep their bootstrap address and reconnect by
   * themselves once it is back.
   *
   * @throws IllegalStateException when it is already stopped
   */
  public synchronized void stop() {
    if (server == null) {
      throw new IllegalStateException("the embedded broker is already stopped");
    }
    KafkaRaftServer stopping = server;
    server = null;
    stopping.shutdown();
    stopping.awaitShutdown();
  }

  /**
   * Starts the broker stopped by {@link #stop} again: a new server in this JVM on the same log
   * directory, client port and controller port (the static voter of {@code
   * controller.quorum.voters} keeps its address) and the same security; returns once it
   * authenticates every user again (secured).
   *
   * @throws IllegalStateException when it was not stopped
   */
  public synchronized void startAgain() throws InterruptedException {
    if (server != null) {
      throw new IllegalStateException("the embedded broker is running: stop() it first");
    }
    EmbeddedKafka started = launch(logDir, brokerPort, controllerPort, security, false);
    server = started.server;
    if (security != null) {
      try {
        awaitUsersKnown(bootstrapServers, security);
      } catch (InterruptedException | RuntimeException e) {
        stop();
        throw e;
      }
    }
  }

  /** Whether the broker runs (not {@link #stop stopped}). */
  public synchronized boolean running() {
    return server != null;
  }

  /** Stops the broker unless it is stopped already. Idempotent. */
  @Override
  public synchronized void close() {
    if (server != null) {
      stop();
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}
