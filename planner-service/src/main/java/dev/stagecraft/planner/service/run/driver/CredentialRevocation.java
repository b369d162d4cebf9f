package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.WorkspaceStates;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Revokes a run's state credential (docs/adr/0013), before its terminal status is announced:
 * whoever sees the run ended can rely on the credential being refused. A failure is logged; the
 * credential then dies when the next run of the workspace takes the lock (its fencing token
 * supersedes it). Used by the coordinator and by {@link OpenEffects}.
 */
public final class CredentialRevocation {
  private static final Logger LOG = LoggerFactory.getLogger(CredentialRevocation.class);

  private CredentialRevocation() {}

  public static void revoke(WorkspaceStates states, String tenant, String workspace, String runId) {
    try {
      states.revokeRunCredential(tenant, workspace, runId);
    } catch (RuntimeException e) {
      LOG.warn(
          "could not revoke the state credential of run {} (the next lock holder supersedes it):"
              + " {}",
          runId,
          e.toString());
    }
  }
}
