package dev.stagecraft.planner.service.run.intake;

import dev.stagecraft.planner.service.workspace.ResolvedVariable;
import dev.stagecraft.planner.service.workspace.ResolvedVariables;
import dev.stagecraft.planner.service.workspace.VariableCategory;
import dev.stagecraft.planner.service.workspace.VariableOrigin;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The variables a run plans with (docs/workspaces.md): the run's own values (an undeclared one
 * stays the planner's error, as for {@code -var}); the stored Terraform variables the configuration
 * declares (others are not used: Terraform treats a variable file's undeclared values so); every
 * stored environment variable; and {@code stagecraft_commit_sha}, the commit a git run read, when
 * the configuration declares it (it wins over any other value: it is what the run read).
 *
 * @param used every variable used, with its origin (what the run's record shows; values stay in
 *     memory)
 */
record RunVariables(
    Map<String, String> values,
    Set<String> hcl,
    Set<String> sensitive,
    Map<String, String> environment,
    Set<String> sensitiveEnvironment,
    List<ResolvedVariable> used) {

  /** The variable that holds the commit a git run read, when the configuration declares it. */
  static final String COMMIT_VARIABLE = "stagecraft_commit_sha";

  /**
   * @param declared the names of the configuration's root variables
   * @param commit the commit the run read (null: not from git)
   */
  static RunVariables of(ResolvedVariables resolved, Set<String> declared, String commit) {
    Map<String, String> values = new LinkedHashMap<>();
    Set<String> hcl = new LinkedHashSet<>();
    Set<String> sensitive = new LinkedHashSet<>();
    Map<String, String> environment = new LinkedHashMap<>();
    Set<String> sensitiveEnvironment = new LinkedHashSet<>();
    List<ResolvedVariable> used = new ArrayList<>();
    boolean commitDeclared = commit != null && declared.contains(COMMIT_VARIABLE);
    for (ResolvedVariable v : resolved.variables()) {
      if (v.category() == VariableCategory.ENV) {
        environment.put(v.key(), v.value());
        if (v.sensitive()) {
          sensitiveEnvironment.add(v.key());
        }
        used.add(v);
        continue;
      }
      boolean fromRun = v.origin() instanceof VariableOrigin.Run;
      if ((!fromRun && !declared.contains(v.key()))
          || (commitDeclared && v.key().equals(COMMIT_VARIABLE))) {
        continue;
      }
      values.put(v.key(), v.value());
      if (v.hcl()) {
        hcl.add(v.key());
      }
      if (v.sensitive()) {
        sensitive.add(v.key());
      }
      used.add(v);
    }
    if (commitDeclared) {
      values.put(COMMIT_VARIABLE, commit);
      used.add(
          new ResolvedVariable(
              COMMIT_VARIABLE,
              VariableCategory.TERRAFORM,
              commit,
              false,
              false,
              new VariableOrigin.Stagecraft()));
    }
    return new RunVariables(values, hcl, sensitive, environment, sensitiveEnvironment, used);
  }

  @Override
  public String toString() {
    // values may be secret: names only
    return "RunVariables" + used;
  }
}
