package dev.stagecraft.planner.service.run.recovery;

import java.time.Duration;

/**
 * A planner instance's liveness lease (docs/adr/0034): the instance renews its row every {@link
 * #heartbeat}; another instance may adopt its runs once the row was not renewed for {@link #lease}
 * (both sides measured by the database clock). The instance itself stops driving its runs — it
 * fences itself — when its renewal finds the row adopted or taken by a newer incarnation, or when
 * no renewal succeeded for {@link #fenceAfter} (measured on its own monotonic clock from the start
 * of the last successful renewal, which is never later than the database's renewal time): it then
 * stops before anyone can adopt its runs. Plain values and decisions; immutable.
 *
 * @param heartbeat how often the instance renews its row
 * @param lease how long after the last renewal the instance counts as dead
 */
public record InstanceLease(Duration heartbeat, Duration lease) {

  /**
   * @throws IllegalArgumentException naming the setting when a duration is not positive or the
   *     lease is shorter than three heartbeats (one late renewal must not fence a healthy instance)
   */
  public InstanceLease {
    if (heartbeat == null || heartbeat.isNegative() || heartbeat.isZero()) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT must be positive (e.g. 2s), got " + heartbeat);
    }
    if (lease == null || lease.compareTo(heartbeat.multipliedBy(3)) < 0) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_INSTANCE_LEASE must be at least three heartbeats ("
              + heartbeat.multipliedBy(3)
              + " with STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT="
              + heartbeat
              + "), got "
              + lease
              + "; raise the lease or shorten the heartbeat");
    }
  }

  /** Defaults: renew every 2 s, dead after 15 s without renewal. */
  public static InstanceLease defaults() {
    return new InstanceLease(Duration.ofSeconds(2), Duration.ofSeconds(15));
  }

  /**
   * How long the instance may go without a successful renewal before it fences itself: the lease
   * minus a margin of one heartbeat (the watchdog looks once per heartbeat, so it acts before the
   * lease runs out).
   */
  public Duration fenceAfter() {
    return lease.minus(heartbeat);
  }

  /** What the watchdog does, given how long ago the last successful renewal started. */
  public boolean mustFence(Duration sinceLastRenewal) {
    return sinceLastRenewal.compareTo(fenceAfter()) >= 0;
  }

  /** The log line of an instance that fences itself because it could not renew in time. */
  public String notRenewedMessage(String instanceId, Duration sinceLastRenewal, String lastError) {
    return "planner instance "
        + instanceId
        + " could not renew its lease for "
        + sinceLastRenewal.toMillis()
        + " ms (lease "
        + lease.toMillis()
        + " ms): another instance may adopt its runs, so it stops driving them and exits"
        + (lastError == null ? "" : " (last error: " + lastError + ")")
        + "; a supervisor restarts it";
  }

  /** The log line of an instance whose row was adopted or taken by a newer incarnation. */
  public static String takenOverMessage(String instanceId, String adoptedBy) {
    return "planner instance "
        + instanceId
        + (adoptedBy == null
            ? " was registered again by a newer process with the same instance id"
            : " stopped renewing its lease in time and its runs were adopted by instance "
                + adoptedBy)
        + "; it stops driving its runs (the new owner drives them) and exits; a supervisor"
        + " restarts it";
  }
}
