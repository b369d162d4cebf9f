package dev.stagecraft.devstack;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * How to start a dev stack.
 *
 * @param repoDir where {@code <svc>/target/<svc>.jar} are
 * @param stagecraftHome where the CLI pointer {@code dev-stack.json} goes
 * @param ports preferred port per service; 0 means any free port. A busy preferred port is replaced
 *     by a free one.
 * @param kafkaPort preferred Kafka port (0: any)
 * @param postgresPort preferred port of the embedded PostgreSQL (0: any)
 * @param externalDb PostgreSQL to use instead of the embedded one, or null
 * @param javaCommand the {@code java} executable that runs the services
 * @param serviceSettings extra {@code STAGECRAFT_*} environment variables given to every service
 *     (e.g. {@code STAGECRAFT_PLANNER_ACTION_LEASE=5s} in tests); empty by default
 */
public record DevStackOptions(
    Path dataDir,
    Path repoDir,
    Path stagecraftHome,
    Map<StackService, Integer> ports,
    int kafkaPort,
    int postgresPort,
    ExternalDatabase externalDb,
    String javaCommand,
    Duration healthTimeout,
    PrintStream out,
    Map<String, String> serviceSettings) {

  public DevStackOptions {
    serviceSettings = serviceSettings == null ? Map.of() : Map.copyOf(serviceSettings);
  }

  /** Without extra service settings. */
  public DevStackOptions(
      Path dataDir,
      Path repoDir,
      Path stagecraftHome,
      Map<StackService, Integer> ports,
      int kafkaPort,
      int postgresPort,
      ExternalDatabase externalDb,
      String javaCommand,
      Duration healthTimeout,
      PrintStream out) {
    this(
        dataDir,
        repoDir,
        stagecraftHome,
        ports,
        kafkaPort,
        postgresPort,
        externalDb,
        javaCommand,
        healthTimeout,
        out,
        Map.of());
  }

  /** A PostgreSQL server given by {@code STAGECRAFT_DB_URL} and friends. */
  public record ExternalDatabase(String url, String user, String password) {}

  /** The fixed ports of docs/operations.md (planner 8080, state 8082, lock 8083, executor 8084). */
  public static Map<StackService, Integer> defaultPorts() {
    Map<StackService, Integer> ports = new EnumMap<>(StackService.class);
    for (StackService s : StackService.values()) {
      ports.put(s, s.defaultPort());
    }
    return ports;
  }

  /** Any free port for every service (tests, or several stacks on one machine). */
  public static Map<StackService, Integer> anyPorts() {
    Map<StackService, Integer> ports = new EnumMap<>(StackService.class);
    for (StackService s : StackService.values()) {
      ports.put(s, 0);
    }
    return ports;
  }

  /** The JDK running this JVM. */
  public static String currentJava() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
