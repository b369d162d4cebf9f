package dev.stagecraft.planner.apply;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.List;
import java.util.Map;

/**
 * An action made concrete at dispatch time: its final attributes (with the new {@code id}), its
 * provisioner steps with every expression evaluated (destroy-time steps first for a
 * destroy-then-create replace), and the values to redact from its output.
 *
 * @param connections the evaluated {@code connection} arguments of each step (the resource's or
 *     removed block's, masked by the provisioner's own of the same name, as in Terraform; empty
 *     when there is none), parallel to {@code steps}; {@code key_file} stays a path here (the
 *     step's {@link dev.stagecraft.schemas.action.SshConnection} carries the key read from it)
 * @param sensitivePaths paths inside {@code attributes} (attribute name, then map keys and list
 *     indexes) whose values are sensitive: they go out only sealed ({@link
 *     dev.stagecraft.planner.plan.AttributeSealing#seal}, docs/adr/0024)
 */
public record ActionResolution(
    Map<String, Object> attributes,
    List<ProvisionerStep> steps,
    List<String> sensitiveValues,
    Diagnostics diagnostics,
    Map<String, String> sources,
    List<Map<String, Object>> connections,
    List<List<Object>> sensitivePaths) {

  public ActionResolution {
    connections = connections == null ? List.of() : List.copyOf(connections);
    sensitivePaths = sensitivePaths == null ? List.of() : List.copyOf(sensitivePaths);
  }

  /** Without sensitive attribute paths. */
  public ActionResolution(
      Map<String, Object> attributes,
      List<ProvisionerStep> steps,
      List<String> sensitiveValues,
      Diagnostics diagnostics,
      Map<String, String> sources,
      List<Map<String, Object>> connections) {
    this(attributes, steps, sensitiveValues, diagnostics, sources, connections, List.of());
  }

  /** Without connections. */
  public ActionResolution(
      Map<String, Object> attributes,
      List<ProvisionerStep> steps,
      List<String> sensitiveValues,
      Diagnostics diagnostics,
      Map<String, String> sources) {
    this(attributes, steps, sensitiveValues, diagnostics, sources, List.of(), List.of());
  }

  public boolean hasErrors() {
    return diagnostics.hasErrors();
  }

  public String renderDiagnostics() {
    return diagnostics.render(sources);
  }
}
