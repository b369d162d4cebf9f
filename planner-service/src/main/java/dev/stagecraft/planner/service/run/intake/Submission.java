package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.source.RunSource;
import dev.stagecraft.planner.service.workspace.ResolvedVariable;
import dev.stagecraft.planner.service.workspace.VariableOrigin;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request to start a run, as the public API ({@code POST /api/v1/runs}) and chat-ops triggers
 * ({@code dev.stagecraft.run.requested}) both make it, once their own wire format is decoded and
 * their configuration version (if any) resolved.
 *
 * @param supportFiles non-configuration files by path, decoded (null: none)
 * @param variables values by name (null: none)
 * @param hclVariables the names among {@code variables} whose values are HCL expressions
 * @param replace addresses to replace (null: none)
 * @param parallelism the run's parallelism; null: the workspace's setting
 * @param coalescingKey what the run is for, on a workspace with coalescing on; null: {@code
 *     default} (docs/adr/0023)
 * @param requestedBy who asked, as the run's records show it
 * @param pendingMessage shown with the run's {@code pending} transition; null: none
 * @param description what the run's records keep beside the run (the API's message and
 *     configuration version); null: nothing
 * @param key what makes a repeated submission harmless ({@link IdempotencyKey})
 * @param fromWorkspace null when the submission brings its files; else {@code files} is empty and
 *     the configuration comes from the workspace (docs/workspaces.md), at the ref or commit named
 */
public record Submission(
    String tenant,
    String workspace,
    Map<String, String> files,
    Map<String, byte[]> supportFiles,
    Map<String, String> variables,
    Set<String> hclVariables,
    boolean destroy,
    List<String> replace,
    Long expectedSerial,
    String expectedDigest,
    Integer parallelism,
    String coalescingKey,
    String requestedBy,
    String pendingMessage,
    Description description,
    IdempotencyKey key,
    FromWorkspace fromWorkspace) {

  /** A submission that brings its files. */
  public Submission(
      String tenant,
      String workspace,
      Map<String, String> files,
      Map<String, byte[]> supportFiles,
      Map<String, String> variables,
      Set<String> hclVariables,
      boolean destroy,
      List<String> replace,
      Long expectedSerial,
      String expectedDigest,
      Integer parallelism,
      String coalescingKey,
      String requestedBy,
      String pendingMessage,
      Description description,
      IdempotencyKey key) {
    this(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        hclVariables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        parallelism,
        coalescingKey,
        requestedBy,
        pendingMessage,
        description,
        key,
        null);
  }

  /**
   * A run that takes its configuration from its workspace: at {@code commit} when given, else at
   * {@code ref} (a branch or tag) when given, else at the workspace source's own ref.
   */
  public record FromWorkspace(String ref, String commit) {}

  public Submission {
    files = files == null ? Map.of() : files;
    variables = variables == null ? Map.of() : variables;
    supportFiles = supportFiles == null ? Map.of() : supportFiles;
    hclVariables = hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
    key = key == null ? new IdempotencyKey.None() : key;
  }

  /** The same submission with these files, read from its workspace. */
  Submission withFiles(Map<String, String> configFiles, Map<String, byte[]> support) {
    return new Submission(
        tenant,
        workspace,
        configFiles,
        support,
        variables,
        hclVariables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        parallelism,
        coalescingKey,
        requestedBy,
        pendingMessage,
        description,
        key,
        fromWorkspace);
  }

  /**
   * What is recorded with a run beyond its request: the caller's message and the configuration
   * version the files came from (either may be null); where its configuration came from when its
   * workspace gave it ({@code source}, null when the request sent it), and every variable it uses
   * with its origin ({@code variables}: values stay in memory, only names and origins are recorded)
   * at {@code variableVersions} of its workspace's variables and sets.
   */
  public record Description(
      String message,
      String configurationVersion,
      RunSource source,
      List<ResolvedVariable> variables,
      Map<String, Long> variableVersions) {
    public Description {
      variables = variables == null ? List.of() : List.copyOf(variables);
      variableVersions = variableVersions == null ? Map.of() : Map.copyOf(variableVersions);
    }

    /** The API's message and configuration version alone. */
    public Description(String message, String configurationVersion) {
      this(message, configurationVersion, null, List.of(), Map.of());
    }
  }

  /**
   * The same submission described with where its configuration came from and the variables it uses
   * (kept in its {@link Description}; a submission without one gets one when either is known).
   */
  Submission described(
      RunSource source, List<ResolvedVariable> used, Map<String, Long> variableVersions) {
    boolean stored = used.stream().anyMatch(v -> !(v.origin() instanceof VariableOrigin.Run));
    if (description == null && source == null && !stored) {
      return this;
    }
    Description d = description == null ? new Description(null, null) : description;
    String version =
        source != null && source.configurationVersion() != null
            ? source.configurationVersion()
            : d.configurationVersion();
    return new Submission(
        tenant,
        workspace,
        files,
        supportFiles,
        variables,
        hclVariables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        parallelism,
        coalescingKey,
        requestedBy,
        pendingMessage,
        new Description(d.message(), version, source, used, variableVersions),
        key,
        fromWorkspace);
  }
}
