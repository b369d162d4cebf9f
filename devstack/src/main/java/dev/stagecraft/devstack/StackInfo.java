package dev.stagecraft.devstack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Contents of {@code stack.json}: written once every service is healthy, removed on shutdown. The
 * CLI reads it to find the supervisor ({@code pid}) and the endpoints.
 *
 * @param services pid of each service process by {@link StackService#key()}, so that a supervisor
 *     started after a crash can stop leftovers
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StackInfo(
    long pid,
    String planner,
    String state,
    String lock,
    String executor,
    String kafka,
    String postgres,
    String dataDir,
    Map<String, Long> services) {

  /** The same with another pid of one service (started again). */
  public StackInfo withServicePid(String key, long pid) {
    Map<String, Long> pids = new LinkedHashMap<>(services == null ? Map.of() : services);
    pids.put(key, pid);
    return new StackInfo(
        this.pid,
        planner,
        state,
        lock,
        executor,
        kafka,
        postgres,
        dataDir,
        Collections.unmodifiableMap(pids));
  }

  /** Whether the supervisor that wrote this file is still alive. */
  public boolean supervisorAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /**
   * The endpoints and the shell exports, as {@code up} prints them.
   *
   * @param token the dev tenant's API token, or null when there is none
   */
  public String summary(String token) {
    StringBuilder b = new StringBuilder();
    b.append("Stagecraft dev stack is up (data: ").append(dataDir).append(")\n");
    b.append("  planner   ").append(planner).append("   (public address)\n");
    b.append("  console   ")
        .append(planner)
        .append("/console   (web console: sign in with the token below)\n");
    b.append("  state     ").append(state).append('\n');
    b.append("  lock      ").append(lock).append('\n');
    b.append("  executor  ").append(executor).append('\n');
    b.append("  kafka     ")
        .append(kafka)
        .append("   (SASL/SCRAM; client settings per principal: ")
        .append(Path.of(dataDir, "kafka-users", "<principal>.properties"))
        .append(")\n");
    b.append("  postgres  ").append(postgres).append('\n');
    b.append("  logs      ").append(Path.of(dataDir, "logs")).append('\n');
    b.append('\n');
    b.append("export STAGECRAFT_ADDR=").append(planner).append('\n');
    if (token != null) {
      b.append("export STAGECRAFT_TOKEN=").append(token).append('\n');
    }
    return b.toString();
  }

  public Optional<ProcessHandle> supervisor() {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
  }
}
