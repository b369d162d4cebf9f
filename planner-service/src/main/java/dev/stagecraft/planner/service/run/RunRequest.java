package dev.stagecraft.planner.service.run;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request to plan and apply a configuration on a workspace.
 *
 * @param files configuration files by name ({@code main.tf} → text)
 * @param supportFiles the other files of the configuration directory (relative path → content),
 *     read by {@code file()} and provisioners; paths already checked ({@link UploadedFiles#decode})
 * @param variables input variables as given on the command line ({@code -var}), raw strings
 * @param expectedSerial when set, the run is refused if the state's serial differs (an approved
 *     plan must not be applied to a state that moved)
 * @param expectedDigest when set (a saved plan), the run is refused unless planning again gives
 *     exactly this plan digest
 * @param coalescingKey when set, the run's lock request carries it: a newer run of the workspace
 *     with the same key replaces this one while it is queued (docs/adr/0023); null for none
 * @param stepTimeoutSeconds the timeout of every provisioner step without one of its own (the
 *     workspace's step timeout when the run was requested), so that no step holds an executor slot
 *     forever
 */
public record RunRequest(
    String tenant,
    String workspace,
    Map<String, String> files,
    Map<String, byte[]> supportFiles,
    Map<String, String> variables,
    boolean destroy,
    List<String> replace,
    Long expectedSerial,
    String expectedDigest,
    String requestedBy,
    int parallelism,
    String coalescingKey,
    int stepTimeoutSeconds,
    Set<String> hclVariables) {

  /** A workspace's step timeout until changed: one hour. */
  public static final int DEFAULT_STEP_TIMEOUT_SECONDS = 3600;

  /** Every variable value a string, as {@code -var} gives it. */
  public RunRequest(
      String tenant,
      String workspace,
      Map<String, String> files,
      Map<String, byte[]> supportFiles,
      Map<String, String> variables,
      boolean destroy,
      List<String> replace,
      Long expectedSerial,
      String expectedDigest,
      String requestedBy,
      int parallelism,
      String coalescingKey,
      int stepTimeoutSeconds) {
    this(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        coalescingKey,
        stepTimeoutSeconds,
        Set.of());
  }

  public RunRequest {
    files = Map.copyOf(files);
    supportFiles = supportFiles == null ? Map.of() : Map.copyOf(supportFiles);
    variables = variables == null ? Map.of() : Map.copyOf(variables);
    replace = replace == null ? List.of() : List.copyOf(replace);
    hclVariables = hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
  }

  /** A request with the default step timeout. */
  public RunRequest(
      String tenant,
      String workspace,
      Map<String, String> files,
      Map<String, byte[]> supportFiles,
      Map<String, String> variables,
      boolean destroy,
      List<String> replace,
      Long expectedSerial,
      String expectedDigest,
      String requestedBy,
      int parallelism,
      String coalescingKey) {
    this(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        coalescingKey,
        DEFAULT_STEP_TIMEOUT_SECONDS);
  }

  /** A request without a coalescing key. */
  public RunRequest(
      String tenant,
      String workspace,
      Map<String, String> files,
      Map<String, byte[]> supportFiles,
      Map<String, String> variables,
      boolean destroy,
      List<String> replace,
      Long expectedSerial,
      String expectedDigest,
      String requestedBy,
      int parallelism) {
    this(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        null);
  }

  /** A request without supporting files. */
  public RunRequest(
      String tenant,
      String workspace,
      Map<String, String> files,
      Map<String, String> variables,
      boolean destroy,
      List<String> replace,
      Long expectedSerial,
      String expectedDigest,
      String requestedBy,
      int parallelism) {
    this(
        tenant,
        workspace,
        files,
        Map.of(),
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism);
  }

  /** The same request without its supporting files (which a run needs only until written). */
  RunRequest withoutSupportFiles() {
    return new RunRequest(
        tenant,
        workspace,
        files,
        Map.of(),
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        coalescingKey,
        stepTimeoutSeconds,
        hclVariables);
  }

  /** The same request with this coalescing key for its lock request (null: none). */
  public RunRequest withCoalescingKey(String key) {
    return new RunRequest(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        key,
        stepTimeoutSeconds,
        hclVariables);
  }

  /** The same request with this step timeout for steps without one of their own. */
  public RunRequest withStepTimeoutSeconds(int seconds) {
    return new RunRequest(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        coalescingKey,
        seconds,
        hclVariables);
  }

  /** The same request with the names of its variables whose values are HCL expressions. */
  public RunRequest withHclVariables(Set<String> names) {
    return new RunRequest(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        requestedBy,
        parallelism,
        coalescingKey,
        stepTimeoutSeconds,
        names);
  }
}
