package dev.stagecraft.devstack;

import dev.stagecraft.platform.auth.CredentialNeeds;

/**
 * The four Stagecraft services as the dev stack starts them, in start order groups: the stores'
 * owners (lock, state) first, then the services that call them (planner, executor).
 */
public enum StackService {
  LOCK("lock", "lock-service", 8083, 0, CredentialNeeds.LOCK_SERVICE),
  STATE("state", "state-service", 8082, 0, CredentialNeeds.STATE_SERVICE),
  PLANNER("planner", "planner-service", 8080, 1, CredentialNeeds.PLANNER_SERVICE),
  EXECUTOR("executor", "executor-service", 8084, 1, CredentialNeeds.EXECUTOR_SERVICE);

  private final String key;
  private final String artifactId;
  private final int defaultPort;
  private final int startGroup;
  private final CredentialNeeds credentialNeeds;

  StackService(
      String key,
      String artifactId,
      int defaultPort,
      int startGroup,
      CredentialNeeds credentialNeeds) {
    this.key = key;
    this.artifactId = artifactId;
    this.defaultPort = defaultPort;
    this.startGroup = startGroup;
    this.credentialNeeds = credentialNeeds;
  }

  /** The service tokens the service's process holds (none for the executor). */
  public CredentialNeeds credentialNeeds() {
    return credentialNeeds;
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
