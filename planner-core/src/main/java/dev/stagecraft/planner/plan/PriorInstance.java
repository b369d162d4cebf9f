package dev.stagecraft.planner.plan;

import java.util.List;
import java.util.Map;

/** One resource instance as recorded in the workspace's state before planning. */
public record PriorInstance(
    String address,
    String type,
    String name,
    Map<String, Object> attributes,
    List<String> dependencies,
    boolean tainted) {

  public PriorInstance {
    attributes = attributes == null ? Map.of() : attributes;
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
  }
}
