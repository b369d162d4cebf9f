package dev.stagecraft.planner.plan;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What to plan.
 *
 * @param files configuration files by name
 * @param variables raw input variable values ({@code -var NAME=VALUE}, var files already merged)
 * @param replace addresses to replace even if unchanged ({@code -replace=ADDR})
 * @param destroy plan the destruction of everything in state
 * @param baseDir the configuration directory for {@code file()} and {@code path.module}; may be
 *     null on a server that received the configuration files only (file functions then read
 *     nothing)
 * @param confineFiles file functions and provisioner files may read only below {@code baseDir} (a
 *     server planning a tenant's uploaded files); {@code path.*} then show {@code "."} rather than
 *     the server's directory. Always in effect when {@code baseDir} is null.
 * @param hclVariables the names among {@code variables} whose values are HCL expressions (from
 *     variable files: they keep their own type, see {@code VariableValues.parseHclValue}); the
 *     others are {@code -var} and environment strings, parsed by Terraform's rules for those
 * @param remoteStates what was read for each {@code data "terraform_remote_state"} block, by its
 *     address ({@code data.terraform_remote_state.NAME}; {@link Planner#remoteStateSources} says
 *     what to read); null when nothing was read (validate, the CLI's and the server's configuration
 *     checks): every remote output is then unknown, and so is a count or for_each computed from one
 *     without being an error (docs/planning.md "Remote state")
 */
public record PlanRequest(
    String workspace,
    Map<String, String> files,
    Map<String, String> variables,
    List<String> replace,
    boolean destroy,
    Path baseDir,
    boolean confineFiles,
    Set<String> hclVariables,
    Map<String, RemoteStateRead> remoteStates) {

  /** Nothing read for remote states (see {@code remoteStates}). */
  public PlanRequest(
      String workspace,
      Map<String, String> files,
      Map<String, String> variables,
      List<String> replace,
      boolean destroy,
      Path baseDir,
      boolean confineFiles,
      Set<String> hclVariables) {
    this(workspace, files, variables, replace, destroy, baseDir, confineFiles, hclVariables, null);
  }

  /** This request with what was read for its remote states. */
  public PlanRequest withRemoteStates(Map<String, RemoteStateRead> reads) {
    return new PlanRequest(
        workspace, files, variables, replace, destroy, baseDir, confineFiles, hclVariables, reads);
  }

  /** This request with other {@code -replace} addresses. */
  public PlanRequest withReplace(List<String> addresses) {
    return new PlanRequest(
        workspace,
        files,
        variables,
        addresses,
        destroy,
        baseDir,
        confineFiles,
        hclVariables,
        remoteStates);
  }

  /** Every variable value a string as {@code -var} gives it. */
  public PlanRequest(
      String workspace,
      Map<String, String> files,
      Map<String, String> variables,
      List<String> replace,
      boolean destroy,
      Path baseDir,
      boolean confineFiles) {
    this(workspace, files, variables, replace, destroy, baseDir, confineFiles, Set.of());
  }

  /** Not confined: the CLI reads any path the user gives, as Terraform does. */
  public PlanRequest(
      String workspace,
      Map<String, String> files,
      Map<String, String> variables,
      List<String> replace,
      boolean destroy,
      Path baseDir) {
    this(workspace, files, variables, replace, destroy, baseDir, false);
  }

  public PlanRequest {
    files = Map.copyOf(files);
    variables = variables == null ? Map.of() : Map.copyOf(variables);
    replace = replace == null ? List.of() : List.copyOf(replace);
    hclVariables = hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
    remoteStates = remoteStates == null ? null : Map.copyOf(remoteStates);
  }
}
