package dev.stagecraft.planner.service.workspace;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The variables of one run, each from the source precedence chose (docs/workspaces.md), and the
 * versions of the workspace's variables and of each variable set they were read at.
 *
 * @param variables at most one per (category, key)
 * @param versions what was read, for the run's record: {@code workspace} → version, {@code
 *     set:NAME} → version (empty when nothing was stored)
 */
public record ResolvedVariables(List<ResolvedVariable> variables, Map<String, Long> versions) {
  /** Nothing but what the run request gives. */
  public static final ResolvedVariables NONE = new ResolvedVariables(List.of(), Map.of());

  public ResolvedVariables {
    variables = List.copyOf(variables);
    versions = Map.copyOf(versions);
  }

  /** Terraform variables' values by name (the run request's {@code variables}). */
  public Map<String, String> terraformValues() {
    Map<String, String> out = new LinkedHashMap<>();
    of(VariableCategory.TERRAFORM).forEach(v -> out.put(v.key(), v.value()));
    return out;
  }

  /** The names among {@link #terraformValues} whose values are HCL expressions. */
  public Set<String> hclNames() {
    return names(VariableCategory.TERRAFORM, true, false);
  }

  /** The Terraform variables whose values are sensitive. */
  public Set<String> sensitiveNames() {
    return names(VariableCategory.TERRAFORM, false, true);
  }

  /** Environment variables for every {@code local-exec} step, by name. */
  public Map<String, String> environment() {
    Map<String, String> out = new LinkedHashMap<>();
    of(VariableCategory.ENV).forEach(v -> out.put(v.key(), v.value()));
    return out;
  }

  /** The environment variables whose values are sensitive. */
  public Set<String> sensitiveEnvironment() {
    return names(VariableCategory.ENV, false, true);
  }

  private List<ResolvedVariable> of(VariableCategory category) {
    return variables.stream().filter(v -> v.category() == category).toList();
  }

  private Set<String> names(VariableCategory category, boolean hcl, boolean sensitive) {
    return of(category).stream()
        .filter(v -> (!hcl || v.hcl()) && (!sensitive || v.sensitive()))
        .map(ResolvedVariable::key)
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }
}
