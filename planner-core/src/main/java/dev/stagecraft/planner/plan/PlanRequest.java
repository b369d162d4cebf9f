package dev.stagecraft.planner.plan;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

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
 */
public record PlanRequest(
    String workspace,
    Map<String, String> files,
    Map<String, String> variables,
    List<String> replace,
    boolean destroy,
    Path baseDir,
    boolean confineFiles) {

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
  }
}
