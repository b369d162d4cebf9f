package dev.stagecraft.chaos.history;

/** A workspace: names are unique within a tenant. */
public record WorkspaceKey(String tenant, String workspace) implements Comparable<WorkspaceKey> {

  @Override
  public int compareTo(WorkspaceKey other) {
    int byTenant = tenant.compareTo(other.tenant);
    return byTenant != 0 ? byTenant : workspace.compareTo(other.workspace);
  }

  @Override
  public String toString() {
    return tenant + "/" + workspace;
  }
}
