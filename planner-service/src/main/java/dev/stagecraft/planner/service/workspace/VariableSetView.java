package dev.stagecraft.planner.service.workspace;

import java.util.List;

/**
 * The variables one owner holds, as precedence reads them: a workspace's own ({@code name} is the
 * workspace's, {@code global} false) or a variable set's.
 *
 * @param global a variable set attached to every workspace of its tenant
 * @param version the owner's version: the number of changes made to its variables (0: none yet)
 */
public record VariableSetView(
    String name, boolean global, long version, List<StoredVariable> variables) {
  public VariableSetView {
    variables = List.copyOf(variables);
  }
}
