package dev.stagecraft.platform.kafka;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Client settings shared by every service: durable producers, manually committed consumers, and the
 * principal every client of the service authenticates as.
 *
 * <p>With {@link Credentials}, every producer, consumer and admin client authenticates with
 * SASL/SCRAM-SHA-512 ({@code STAGECRAFT_KAFKA_USERNAME} / {@code STAGECRAFT_KAFKA_PASSWORD}, docs
 * /operations.md "Kafka security"); without, it connects unauthenticated, which only a broker
 * without authentication accepts (the brokers module tests start for themselves).
 *
 * @param credentials the principal's credentials, or null for an unauthenticated client
 */
public record KafkaSettings(String bootstrapServers, Credentials credentials) {
  /** The SASL mechanism of every Stagecraft client. */
  public static final String MECHANISM = "SCRAM-SHA-512";

  /** An unauthenticated client (a broker without authentication). */
  public KafkaSettings(String bootstrapServers) {
    this(bootstrapServers, null);
  }

  /**
   * The settings a service reads from its configuration: {@code username} and {@code password} both
   * set (SASL/SCRAM) or both empty (no authentication).
   *
   * @param securityProtocol {@code SASL_PLAINTEXT} (the default when empty) or {@code SASL_SSL}
   * @throws IllegalArgumentException naming the variable to fix, never quoting the password
   */
  public static KafkaSettings of(
      String bootstrapServers, String username, String password, String securityProtocol) {
    boolean hasUser = username != null && !username.isBlank();
    boolean hasPassword = password != null && !password.isEmpty();
    if (!hasUser && !hasPassword) {
      return new KafkaSettings(bootstrapServers);
    }
    if (!hasUser || !hasPassword) {
      throw new IllegalArgumentException(
          (hasUser ? "STAGECRAFT_KAFKA_USERNAME" : "STAGECRAFT_KAFKA_PASSWORD")
              + " is set but "
              + (hasUser ? "STAGECRAFT_KAFKA_PASSWORD" : "STAGECRAFT_KAFKA_USERNAME")
              + " is empty: set both (the service's Kafka principal, docs/operations.md \"Kafka"
              + " security\"), or neither for a broker without authentication");
    }
    return new KafkaSettings(
        bootstrapServers, new Credentials(username.strip(), password, securityProtocol));
  }

  /**
   * A principal's SCRAM credentials; {@link #toString} leaves the password out.
   *
   * @param securityProtocol {@code SASL_PLAINTEXT} or {@code SASL_SSL}; null or empty means {@code
   *     SASL_PLAINTEXT}
   */
  public record Credentials(String username, String password, String securityProtocol) {
    public Credentials {
      if (username == null || username.isBlank()) {
        throw new IllegalArgumentException("a Kafka username cannot be empty");
      }
      if (password == null || password.isEmpty()) {
        throw new IllegalArgumentException("the Kafka password of " + username + " is empty");
      }
      checkJaasSafe("STAGECRAFT_KAFKA_USERNAME", username);
      checkJaasSafe("STAGECRAFT_KAFKA_PASSWORD", password);
      securityProtocol =
          securityProtocol == null || securityProtocol.isBlank()
              ? "SASL_PLAINTEXT"
              : securityProtocol.strip().toUpperCase(Locale.ROOT);
      if (!securityProtocol.equals("SASL_PLAINTEXT") && !securityProtocol.equals("SASL_SSL")) {
        throw new IllegalArgumentException(
            "STAGECRAFT_KAFKA_SECURITY_PROTOCOL is "
                + securityProtocol
                + ": use SASL_PLAINTEXT (the default) or SASL_SSL");
      }
    }

    public Credentials(String username, String password) {
      this(username, password, null);
    }

    /** The JAAS line of SCRAM's login module for this principal. */
    public String jaasConfig() {
      return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
          + username
          + "\" password=\""
          + password
          + "\";";
    }

    @Override
    public String toString() {
      return "Credentials[username=" + username + ", securityProtocol=" + securityProtocol + "]";
    }

    private static void checkJaasSafe(String variable, String value) {
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c == '"' || c == '\\' || Character.isISOControl(c)) {
          throw new IllegalArgumentException(
              variable
                  + " contains a quote, a backslash or a control character, which a JAAS"
                  + " configuration cannot carry: use another value (e.g. openssl rand -hex 32)");
        }
      }
    }
  }

  /** The principal clients authenticate as, or {@code ANONYMOUS} without credentials. */
  public String principal() {
    return credentials == null ? "ANONYMOUS" : credentials.username();
  }

  /**
   * The connection settings every client needs: the bootstrap servers and, with credentials, the
   * SASL settings ({@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config}).
   * Also what an {@link org.apache.kafka.clients.admin.Admin} is created with.
   */
  public Properties client() {
    Properties p = security();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return p;
  }

  /**
   * Only the SASL settings (empty without credentials): the contents of a {@code --command-config}
   * file for Kafka's own tools.
   */
  public Properties security() {
    Properties p = new Properties();
    if (credentials != null) {
      p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, credentials.securityProtocol());
      p.put(SaslConfigs.SASL_MECHANISM, MECHANISM);
      p.put(SaslConfigs.SASL_JAAS_CONFIG, credentials.jaasConfig());
    }
    return p;
  }

  public Properties producer(String clientId) {
    Properties p = client();
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  /**
   * A consumer whose group notices its death within {@code sessionTimeout} (instead of the client
   * default of 45 s), so a killed member's partitions move to the others quickly.
   */
  public Properties consumer(
      String groupId, String clientId, String offsetReset, Duration sessionTimeout) {
    Properties p = consumer(groupId, clientId, offsetReset);
    long millis = sessionTimeout.toMillis();
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) millis);
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) Math.max(500, millis / 4));
    return p;
  }

  public Properties consumer(String groupId, String clientId, String offsetReset) {
    Properties p = client();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, offsetReset);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }
}
