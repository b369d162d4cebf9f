package dev.stagecraft.state.history;

import java.util.List;
import java.util.Map;

/** One resource instance as recorded in a workspace's state. */
public record InstanceState(
    String address,
    String resourceType,
    Map<String, Object> attributes,
    List<String> dependencies,
    boolean tainted) {}
