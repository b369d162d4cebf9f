package dev.stagecraft.planner.apply;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.List;
import java.util.Map;

/**
 * An action made concrete at dispatch time: its final attributes (with the new {@code id}), its
 * provisioner steps with every expression evaluated, and the values to redact from its output.
 */
public record ActionResolution(
    Map<String, Object> attributes,
    List<ProvisionerStep> steps,
    List<String> sensitiveValues,
    Diagnostics diagnostics,
    Map<String, String> sources) {

  public boolean hasErrors() {
    return diagnostics.hasErrors();
  }

  public String renderDiagnostics() {
    return diagnostics.render(sources);
  }
}
