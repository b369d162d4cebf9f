package dev.stagecraft.devstack;

/**
 * The four Stagecraft services as the dev stack starts them, in start order groups: the stores'
 * owners (lock, state) first, then the services that call them (planner, executor).
 */
public enum StackService {
  LOCK("lock", "lock-service", 8083, 0),
  STATE("state", "state-service", 8082, 0),
  PLANNER("planner", "planner-service", 8080, 1),
  EXECUTOR("executor", "executor-service", 8084, 1);

  private final String key;
  private final String artifactId;
  private final int defaultPort;
  private final int startGroup;

  StackService(String key, String artifactId, int defaultPort, int startGroup) {
    this.key = key;
    this.artifactId = artifactId;
    this.defaultPort = defaultPort;
    this.startGroup = startGroup;
  }

  /** Short name used in stack.json ({@code "planner"}). */
  public String key() {
    return key;
  }

  /** Module directory, jar and log file name ({@code "planner-service"}). */
  public String artifactId() {
    return artifactId;
  }

  public int defaultPort() {
    return defaultPort;
  }

  /** Services of group 0 start (and become healthy) before those of group 1. */
  int startGroup() {
    return startGroup;
  }
}
