package dev.stagecraft.state.history;

import java.util.List;
import java.util.Map;

/**
 * One resource instance as recorded in a workspace's state.
 *
 * @param createBeforeDestroy the effective {@code create_before_destroy} recorded with the last
 *     write (v4 instance {@code create_before_destroy})
 * @param skipDestroy {@code lifecycle { destroy = false }} recorded with the last write (v4
 *     instance {@code skip_destroy})
 */
public record InstanceState(
    String address,
    String resourceType,
    Map<String, Object> attributes,
    List<String> dependencies,
    boolean tainted,
    boolean createBeforeDestroy,
    boolean skipDestroy) {

  /** Without lifecycle flags (both false). */
  public InstanceState(
      String address,
      String resourceType,
      Map<String, Object> attributes,
      List<String> dependencies,
      boolean tainted) {
    this(address, resourceType, attributes, dependencies, tainted, false, false);
  }

  /** This instance with its taint mark set to {@code marked}; everything else as it is. */
  public InstanceState withTainted(boolean marked) {
    return new InstanceState(
        address, resourceType, attributes, dependencies, marked, createBeforeDestroy, skipDestroy);
  }
}
