package dev.stagecraft.planner.plan;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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
 * @param sensitiveVariables root variable names whose values are sensitive because they came from a
 *     sensitive stored value (a workspace's or a variable set's, docs/adr/0078), even when the
 *     {@code variable} block does not say {@code sensitive = true}: planned exactly as a declared
 *     sensitive variable
 * @param environment the workspace's environment variables, given to every {@code local-exec} step
 *     under the provisioner's own {@code environment} (whose entries win); never in the plan or its
 *     digest
 * @param sensitiveEnvironment the names among {@code environment} whose values are sensitive: a
 *     step that receives one carries a secret (sealed in its dispatch, redacted from its output)
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
    Map<String, RemoteStateRead> remoteStates,
    Set<String> sensitiveVariables,
    Map<String, String> environment,
    Set<String> sensitiveEnvironment) {

  /** No sensitive stored variables and no workspace environment. */
  public PlanRequest(
      String workspace,
      Map<String, String> files,
      Map<String, String> variables,
      List<String> replace,
      boolean destroy,
      Path baseDir,
      boolean confineFiles,
      Set<String> hclVariables,
      Map<String, RemoteStateRead> remoteStates) {
    this(
        workspace,
        files,
        variables,
        replace,
        destroy,
        baseDir,
        confineFiles,
        hclVariables,
        remoteStates,
        Set.of(),
        Map.of(),
        Set.of());
  }

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
        workspace,
        files,
        variables,
        replace,
        destroy,
        baseDir,
        confineFiles,
        hclVariables,
        reads,
        sensitiveVariables,
        environment,
        sensitiveEnvironment);
  }

  /**
   * This request with {@code names} (root variables given a sensitive stored value) planned as
   * sensitive.
   */
  public PlanRequest withSensitiveVariables(Set<String> names) {
    return new PlanRequest(
        workspace,
        files,
        variables,
        replace,
        destroy,
        baseDir,
        confineFiles,
        hclVariables,
        remoteStates,
        names,
        environment,
        sensitiveEnvironment);
  }

  /**
   * This request with the workspace's environment variables for every {@code local-exec} step;
   * {@code sensitive} names those whose values are secret.
   */
  public PlanRequest withEnvironment(Map<String, String> values, Set<String> sensitive) {
    return new PlanRequest(
        workspace,
        files,
        variables,
        replace,
        destroy,
        baseDir,
        confineFiles,
        hclVariables,
        remoteStates,
        sensitiveVariables,
        values,
        sensitive);
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
        remoteStates,
        sensitiveVariables,
        environment,
        sensitiveEnvironment);
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
    sensitiveVariables = sensitiveVariables == null ? Set.of() : Set.copyOf(sensitiveVariables);
    environment = environment == null ? Map.of() : Map.copyOf(environment);
    sensitiveEnvironment =
        sensitiveEnvironment == null ? Set.of() : Set.copyOf(sensitiveEnvironment);
  }

  /** Names only: never a variable's or an environment variable's value. */
  @Override
  public String toString() {
    return "PlanRequest[workspace="
        + workspace
        + ", files="
        + new TreeSet<>(files.keySet())
        + ", variables="
        + new TreeSet<>(variables.keySet())
        + ", replace="
        + replace
        + ", destroy="
        + destroy
        + ", sensitiveVariables="
        + new TreeSet<>(sensitiveVariables)
        + ", environment="
        + new TreeSet<>(environment.keySet())
        + "]";
  }
}
