package dev.stagecraft.planner.service.workspace;

/**
 * Where a run's variable value came from, highest precedence first (docs/workspaces.md): the run
 * request itself, the workspace's own variables, a variable set attached to the workspace, a global
 * variable set (attached to every workspace of the tenant), or Stagecraft (the commit a run read,
 * {@code stagecraft_commit_sha}).
 */
public sealed interface VariableOrigin {
  /** How a person reads it: {@code run}, {@code workspace}, {@code variable set "NAME"}, … */
  String describe();

  /**
   * Given with the run (API {@code variables}, CLI {@code -var}, a trigger's {@code variables}).
   */
  record Run() implements VariableOrigin {
    @Override
    public String describe() {
      return "run";
    }
  }

  /** One of the workspace's own variables, at version {@code version} of its variables. */
  record Workspace(long version) implements VariableOrigin {
    @Override
    public String describe() {
      return "workspace";
    }
  }

  /** A variable set, attached to the workspace or global, at its {@code version}. */
  record VariableSet(String name, boolean global, long version) implements VariableOrigin {
    @Override
    public String describe() {
      return (global ? "global variable set \"" : "variable set \"") + name + "\"";
    }
  }

  /** Set by Stagecraft itself (the commit a git-sourced run read). */
  record Stagecraft() implements VariableOrigin {
    @Override
    public String describe() {
      return "stagecraft";
    }
  }
}
