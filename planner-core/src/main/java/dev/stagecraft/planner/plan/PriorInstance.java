package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.Value;
import java.util.List;
import java.util.Map;

/**
 * One resource instance as recorded in the workspace's state before planning.
 *
 * @param dependencies resource addresses ({@code type.name}) this instance depended on when applied
 * @param createBeforeDestroy v4 instance {@code create_before_destroy}: the effective value when it
 *     was applied
 * @param skipDestroy v4 instance {@code skip_destroy} (Stagecraft's documented extension, from
 *     {@code lifecycle { destroy = false }}): a later removal forgets the instance
 * @param sensitivePaths paths inside {@code attributes} (attribute name, then map keys and list
 *     indexes) that are sensitive: listed in the instance's {@code sensitive_attributes}, or sealed
 *     in state and opened (docs/adr/0024); when the same value is written again it is sealed
 */
public record PriorInstance(
    String address,
    String type,
    String name,
    Map<String, Object> attributes,
    List<String> dependencies,
    boolean tainted,
    boolean createBeforeDestroy,
    boolean skipDestroy,
    List<List<Object>> sensitivePaths) {

  public PriorInstance {
    attributes = attributes == null ? Map.of() : attributes;
    dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
    sensitivePaths =
        sensitivePaths == null
            ? List.of()
            : sensitivePaths.stream().<List<Object>>map(List::copyOf).toList();
  }

  /**
   * The attributes as a language value with every {@link #sensitivePaths()} value marked sensitive
   * by the state ({@link Value#isFromState()}), so that an expression reading a prior secret (a
   * sealed value opened for planning, of any type) carries its mark into what it computes, as in
   * Terraform, and {@code nonsensitive()} cannot remove it.
   */
  public Value value() {
    Value value = Value.of(attributes);
    for (List<Object> path : sensitivePaths) {
      value = value.markedFromStateAt(path);
    }
    return value;
  }

  /** Without sealed attribute values. */
  public PriorInstance(
      String address,
      String type,
      String name,
      Map<String, Object> attributes,
      List<String> dependencies,
      boolean tainted,
      boolean createBeforeDestroy,
      boolean skipDestroy) {
    this(
        address,
        type,
        name,
        attributes,
        dependencies,
        tainted,
        createBeforeDestroy,
        skipDestroy,
        List.of());
  }

  /** Without lifecycle flags (both false). */
  public PriorInstance(
      String address,
      String type,
      String name,
      Map<String, Object> attributes,
      List<String> dependencies,
      boolean tainted) {
    this(address, type, name, attributes, dependencies, tainted, false, false, List.of());
  }

  /** {@code type.name} without the instance key. */
  public String resourceAddress() {
    return type + "." + name;
  }
}
