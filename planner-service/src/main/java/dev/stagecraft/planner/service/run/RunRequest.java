package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.workspace.VariableUse;
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
    Set<String> hclVariables,
    WorkspaceInputs inputs) {

  /**
   * What the run's workspace adds to its request (docs/workspaces.md): the Terraform variables that
   * are sensitive because their stored value is, the environment of every {@code local-exec} step
   * (and which of its values are sensitive), and why the workspace's configuration source could not
   * give a configuration ({@code sourceFailure}, null when it could: the run then fails at {@code
   * planning} with it, nothing applied), and where each variable's value came from ({@code uses},
   * shown with the plan; never a value).
   */
  public record WorkspaceInputs(
      Set<String> sensitiveVariables,
      Map<String, String> environment,
      Set<String> sensitiveEnvironment,
      String sourceFailure,
      List<VariableUse> uses) {
    /** Nothing from the workspace. */
    public static final WorkspaceInputs NONE =
        new WorkspaceInputs(Set.of(), Map.of(), Set.of(), null, List.of());

    public WorkspaceInputs {
      sensitiveVariables = sensitiveVariables == null ? Set.of() : Set.copyOf(sensitiveVariables);
      environment = environment == null ? Map.of() : Map.copyOf(environment);
      sensitiveEnvironment =
          sensitiveEnvironment == null ? Set.of() : Set.copyOf(sensitiveEnvironment);
      uses = uses == null ? List.of() : List.copyOf(uses);
    }

    /**
     * The lines the plan output adds about the variables (name, where from, sensitive or not);
     * empty when every variable came from the request.
     */
    public String describeUses() {
      if (uses.stream().allMatch(u -> "run".equals(u.source()))) {
        return "";
      }
      StringBuilder out = new StringBuilder("Variables:\n");
      for (VariableUse u : uses) {
        out.append("  ")
            .append("env".equals(u.category()) ? "env " : "var.")
            .append(u.key())
            .append(" from ")
            .append(u.source())
            .append(u.sensitive() ? " (sensitive)" : "")
            .append('\n');
      }
      return out.toString();
    }

    @Override
    public String toString() {
      // the environment may hold secrets: names only
      return "WorkspaceInputs[sensitive "
          + sensitiveVariables
          + ", environment "
          + environment.keySet()
          + (sourceFailure == null ? "" : ", source failed")
          + "]";
    }
  }

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
        Set.of(),
        WorkspaceInputs.NONE);
  }

  public RunRequest {
    files = Map.copyOf(files);
    supportFiles = supportFiles == null ? Map.of() : Map.copyOf(supportFiles);
    variables = variables == null ? Map.of() : Map.copyOf(variables);
    replace = replace == null ? List.of() : List.copyOf(replace);
    hclVariables = hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
    inputs = inputs == null ? WorkspaceInputs.NONE : inputs;
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
        hclVariables,
        inputs);
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
        hclVariables,
        inputs);
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
        hclVariables,
        inputs);
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
        names,
        inputs);
  }

  /** The same request with what its workspace adds to it. */
  public RunRequest withInputs(WorkspaceInputs workspaceInputs) {
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
        hclVariables,
        workspaceInputs);
  }
}
