package dev.stagecraft.planner.service.run.lifecycle;

import java.util.Objects;

/**
 * What a run was requested with that its lifecycle depends on (the rest of {@code RunRequest} is
 * the driver's business).
 *
 * @param awaitingApproval a plan with changes waits for {@link RunCommand.Approve} (a workspace
 *     without auto-apply)
 * @param expectedSerial the state serial the plan must be made against ({@code apply FILE}, the
 *     CLI's interactive apply), or null
 * @param expectedDigest the digest the plan must have ({@code apply FILE}), or null
 * @param parallelism how many actions may be dispatched at once
 */
public record RunSettings(
    String tenant,
    String workspace,
    boolean awaitingApproval,
    Long expectedSerial,
    String expectedDigest,
    int parallelism) {
  public RunSettings {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(workspace, "workspace");
  }

  /** A run applying as soon as it planned, with parallelism 10. */
  public static RunSettings autoApply(String tenant, String workspace) {
    return new RunSettings(tenant, workspace, false, null, null, 10);
  }

  public RunSettings withApproval() {
    return new RunSettings(tenant, workspace, true, expectedSerial, expectedDigest, parallelism);
  }

  public RunSettings expecting(Long serial, String digest) {
    return new RunSettings(tenant, workspace, awaitingApproval, serial, digest, parallelism);
  }

  /** Whether the plan applied was approved as a whole (docs/adr/0051). */
  public boolean approvalBound() {
    return awaitingApproval || expectedSerial != null || expectedDigest != null;
  }
}
