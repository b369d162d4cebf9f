package dev.stagecraft.devstack;

import dev.stagecraft.platform.auth.ServiceRole;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the dev stack keeps its files under its data directory (default {@code .stagecraft}):
 *
 * <pre>
 * kafka/             Kafka log dir (KRaft metadata and topics)
 * postgres/          PostgreSQL data directory (embedded server only)
 * pg-runtime/        unpacked PostgreSQL binaries
 * logs/&lt;svc&gt;.log     one log per service; logs/devstack.log for a detached supervisor
 * service-token-planner, service-token-state, operator-token
 *                    one token per service role for /internal/** (0600 each, reused across restarts)
 * secrets-keys       STAGECRAFT_SECRETS_KEYS of planner and executor: kid:base64key (0600, reused)
 * kafka-users/       (0700) per Kafka principal: &lt;user&gt; its SCRAM password (0600, reused),
 *                    &lt;user&gt;.properties its client settings (0600, written at every start)
 * credentials.json   the dev tenant's admin API token (0600)
 * stack.json         endpoints and pids while a supervisor runs (removed on shutdown)
 * supervisor.lock    held by the running supervisor
 * </pre>
 */
public record DevStackLayout(Path dataDir) {

  public DevStackLayout {
    dataDir = dataDir.toAbsolutePath().normalize();
  }

  public Path kafkaDir() {
    return dataDir.resolve("kafka");
  }

  public Path postgresDir() {
    return dataDir.resolve("postgres");
  }

  public Path logsDir() {
    return dataDir.resolve("logs");
  }

  public Path serviceLog(StackService service) {
    return logsDir().resolve(service.artifactId() + ".log");
  }

  /** Output of a supervisor started with {@code up -detach}. */
  public Path supervisorLog() {
    return logsDir().resolve("devstack.log");
  }

  /**
   * The file of a service role's token ({@code service-token-planner}, {@code service-token-state},
   * {@code operator-token}).
   */
  public Path serviceTokenFile(ServiceRole role) {
    return dataDir.resolve(
        role == ServiceRole.OPERATOR ? "operator-token" : "service-token-" + role.key());
  }

  /** The one shared service token of earlier versions: removed at the next start. */
  Path retiredServiceTokenFile() {
    return dataDir.resolve("service-token");
  }

  /** The keyring that seals dispatched actions ({@code STAGECRAFT_SECRETS_KEYS}). */
  public Path secretsKeysFile() {
    return dataDir.resolve("secrets-keys");
  }

  /** The Kafka principals' passwords and client settings (docs/operations.md "Kafka security"). */
  public Path kafkaUsersDir() {
    return dataDir.resolve("kafka-users");
  }

  /** The SCRAM password of Kafka user {@code user}. */
  public Path kafkaPasswordFile(String user) {
    return kafkaUsersDir().resolve(user);
  }

  /** Kafka client settings of {@code user}: a {@code --command-config} file for Kafka's tools. */
  public Path kafkaClientPropertiesFile(String user) {
    return kafkaUsersDir().resolve(user + ".properties");
  }

  public Path credentialsFile() {
    return dataDir.resolve("credentials.json");
  }

  public Path stackFile() {
    return dataDir.resolve("stack.json");
  }

  public Path lockFile() {
    return dataDir.resolve("supervisor.lock");
  }

  /**
   * {@code $STAGECRAFT_HOME}, else {@code $HOME/.stagecraft}, else the JVM's user home: the one
   * rule the supervisor (writing the pointer) and the CLI (reading it) share.
   */
  public static Path stagecraftHome(Map<String, String> env) {
    String home = env.get("STAGECRAFT_HOME");
    if (home != null && !home.isBlank()) {
      return Path.of(home.strip()).toAbsolutePath();
    }
    String userHome = env.get("HOME");
    return Path.of(
        userHome != null && !userHome.isBlank()
            ? userHome.strip()
            : System.getProperty("user.home"),
        ".stagecraft");
  }

  /** The pointer the CLI reads: {@code $STAGECRAFT_HOME/dev-stack.json}. */
  public static Path pointerFile(Path stagecraftHome) {
    return stagecraftHome.resolve("dev-stack.json");
  }
}
