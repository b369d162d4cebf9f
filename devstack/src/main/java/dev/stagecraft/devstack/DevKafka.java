package dev.stagecraft.devstack;

import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;

/**
 * The dev stack's Kafka, ready before any service starts: the embedded broker secured (SASL/SCRAM,
 * ACLs, nobody anonymous; {@link EmbeddedKafka#startSecured}), a SCRAM user per {@link
 * StackPrincipal} with its password from {@code <data dir>/kafka-users/<user>} (generated at the
 * first start, 0600, reused), the ACLs of {@link KafkaAccessPolicy} and every topic, created as
 * {@link StackPrincipal#ADMIN}. Each service gets only its own principal's credentials ({@link
 * #serviceEnv}); {@code kafka-users/<user>.properties} holds a principal's client settings for
 * Kafka's own tools ({@code --command-config}), written at every start.
 *
 * <p>Concurrency: immutable after {@link #start} but for the broker's running state ({@link #stop},
 * {@link #startAgain}, {@link #close}: serialized by the broker).
 */
public final class DevKafka implements AutoCloseable {
  /** How long creating the ACLs may take before the start fails. */
  private static final Duration SETUP_WITHIN = Duration.ofSeconds(60);

  private final EmbeddedKafka broker;
  private final Map<StackPrincipal, KafkaSettings> settings;

  private DevKafka(EmbeddedKafka broker, Map<StackPrincipal, KafkaSettings> settings) {
    this.broker = broker;
    this.settings = settings;
  }

  /**
   * Starts the broker on {@code layout}'s Kafka directory and sets it up (see the class comment).
   * On failure the broker is stopped again.
   *
   * @param port the client port, or 0 for a free one
   */
  public static DevKafka start(DevStackLayout layout, int port) throws Exception {
    Files.createDirectories(
        layout.kafkaUsersDir(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Map<String, String> users = new LinkedHashMap<>();
    for (StackPrincipal p : StackPrincipal.values()) {
      users.put(p.user(), password(layout.kafkaPasswordFile(p.user())));
    }
    String brokerPassword = password(layout.kafkaPasswordFile(EmbeddedKafka.BROKER_USER));
    EmbeddedKafka broker =
        EmbeddedKafka.startSecured(
            layout.kafkaDir(),
            port,
            new EmbeddedKafka.Security(brokerPassword, users, Set.of(StackPrincipal.ADMIN.user())));
    try {
      Map<StackPrincipal, KafkaSettings> settings = new EnumMap<>(StackPrincipal.class);
      for (StackPrincipal p : StackPrincipal.values()) {
        KafkaSettings s =
            new KafkaSettings(
                broker.bootstrapServers(),
                new KafkaSettings.Credentials(p.user(), users.get(p.user())));
        settings.put(p, s);
        writeClientProperties(layout.kafkaClientPropertiesFile(p.user()), s);
      }
      KafkaSettings admin = settings.get(StackPrincipal.ADMIN);
      try (Admin client = Admin.create(admin.client())) {
        KafkaAccessPolicy.ensure(client, SETUP_WITHIN);
      }
      TopicBootstrap.ensureTopics(admin, 4, (short) 1);
      return new DevKafka(broker, settings);
    } catch (Exception | Error e) {
      broker.close();
      throw e;
    }
  }

  /**
   * The password kept in {@code file} (generated at the first start), checked: a hand-edited one
   * must still fit into a JAAS line and a SCRAM argument.
   */
  private static String password(Path file) throws IOException {
    String password = StackFiles.secret(file);
    if (!password.matches("[A-Za-z0-9_-]{16,}")) {
      throw new IllegalArgumentException(
          file
              + ": a Kafka password must be at least 16 letters, digits, '-' or '_'. Put another"
              + " one there, or delete the file to have one generated at the next start.");
    }
    return password;
  }

  /** {@code key=value} lines, unescaped, so that they can be read and copied as they are. */
  private static void writeClientProperties(Path file, KafkaSettings settings) throws IOException {
    StringBuilder b = new StringBuilder();
    b.append("# Kafka client settings of principal ")
        .append(settings.principal())
        .append(" (written by the dev stack at every start; docs/operations.md)\n");
    Properties p = settings.client();
    for (String key : new TreeSet<>(p.stringPropertyNames())) {
      b.append(key).append('=').append(p.getProperty(key)).append('\n');
    }
    StackFiles.writeString(file, b.toString(), true);
  }

  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** The controller listener: nobody but the broker itself authenticates there. */
  String controllerServers() {
    return broker.controllerServers();
  }

  /** The client settings of {@code principal}: its credentials on this broker. */
  public KafkaSettings settings(StackPrincipal principal) {
    return settings.get(principal);
  }

  /**
   * What a service process gets: {@code STAGECRAFT_KAFKA} and its own principal's {@code
   * STAGECRAFT_KAFKA_USERNAME} and {@code STAGECRAFT_KAFKA_PASSWORD}, nobody else's.
   */
  public Map<String, String> serviceEnv(StackService service) {
    KafkaSettings.Credentials own = settings(StackPrincipal.of(service)).credentials();
    Map<String, String> env = new LinkedHashMap<>();
    env.put("STAGECRAFT_KAFKA", bootstrapServers());
    env.put("STAGECRAFT_KAFKA_USERNAME", own.username());
    env.put("STAGECRAFT_KAFKA_PASSWORD", own.password());
    return env;
  }

  /**
   * Stops the broker (controlled shutdown); {@link #startAgain} brings it back on the same port and
   * log directory, with its users, ACLs and topics as they were (all kept in its metadata log).
   */
  public void stop() {
    broker.stop();
  }

  /** Starts the broker stopped by {@link #stop} again; see {@link EmbeddedKafka#startAgain}. */
  public void startAgain() throws InterruptedException {
    broker.startAgain();
  }

  /** Stops the broker unless it is stopped already. Idempotent. */
  @Override
  public void close() {
    broker.close();
  }
}
