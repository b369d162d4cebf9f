package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * One holder's time with a workspace lock, from the lock service's audit trail.
 *
 * @param tenant the tenant
 * @param workspace the workspace
 * @param holder who held it (a run id, or a Terraform backend client)
 * @param fencingToken the token granted with it
 * @param acquiredAt when it was granted
 * @param endedAt when it was released, expired or force-released; null if still held at the end
 * @param endedBy {@code released}, {@code expired}, {@code force_released}, or null while held
 */
public record LockTenure(
    String tenant,
    String workspace,
    String holder,
    long fencingToken,
    Instant acquiredAt,
    Instant endedAt,
    String endedBy) {

  public LockTenure {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(workspace, "workspace");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(acquiredAt, "acquiredAt");
  }

  public WorkspaceKey workspaceKey() {
    return new WorkspaceKey(tenant, workspace);
  }
}
