package dev.stagecraft.planner.plan;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instance addresses in modules, between Terraform's form ({@code module.app.null_resource.x[0]}:
 * plans, state, events, the CLI) and the form of the flattened configuration the planner plans
 * ({@code null_resource.module.app.x[0]}: the resource {@code null_resource} named {@code
 * module.app.x}, see {@code ModuleFlattener}). Root addresses are the same in both. Modules with
 * instance keys ({@code module.app["eu"]}) have no flattened form yet: {@link #internal} gives null
 * for them.
 */
public final class ModuleAddresses {
  private ModuleAddresses() {}

  /** The flattened form of a Terraform address; null for an address in a keyed module. */
  public static String internal(String address) {
    if (address == null || !address.startsWith("module.")) {
      return address;
    }
    int open = address.indexOf('[');
    String resource = open < 0 ? address : address.substring(0, open);
    String key = open < 0 ? "" : address.substring(open);
    String[] parts = resource.split("\\.");
    if (address.contains("].") || parts.length < 4 || parts.length % 2 != 0) {
      return null;
    }
    String modulePath = String.join(".", java.util.Arrays.copyOf(parts, parts.length - 2));
    return parts[parts.length - 2] + "." + modulePath + "." + parts[parts.length - 1] + key;
  }

  /** Terraform's form of a flattened address. */
  public static String external(String address) {
    if (address == null) {
      return null;
    }
    int dot = address.indexOf('.');
    if (dot < 0 || !address.startsWith("module.", dot + 1)) {
      return address;
    }
    String type = address.substring(0, dot);
    int open = address.indexOf('[');
    String name = open < 0 ? address.substring(dot + 1) : address.substring(dot + 1, open);
    String key = open < 0 ? "" : address.substring(open);
    int last = name.lastIndexOf('.');
    return name.substring(0, last) + "." + type + "." + name.substring(last + 1) + key;
  }

  /** The name a flattened resource has in its module ({@code module.app.x} → {@code x}). */
  static String shortName(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }

  /** The module path of a Terraform address ({@code module.app}), or null in the root module. */
  static String moduleOf(String address) {
    String internal = internal(address);
    if (internal == null || internal.equals(address)) {
      return null;
    }
    String resource = InstanceKey.resourceOf(internal);
    String name = resource.substring(resource.indexOf('.') + 1);
    return name.substring(0, name.lastIndexOf('.'));
  }

  static List<String> external(List<String> addresses) {
    return addresses.stream().map(ModuleAddresses::external).toList();
  }

  /** The prior state with every module instance at its flattened address. */
  static PriorState internal(PriorState prior) {
    if (prior.instances().keySet().stream().noneMatch(a -> a.startsWith("module."))) {
      return prior;
    }
    Map<String, PriorInstance> out = new LinkedHashMap<>();
    prior
        .instances()
        .forEach(
            (address, i) -> {
              String internal = internal(address);
              String resource = InstanceKey.resourceOf(internal);
              out.put(
                  internal,
                  new PriorInstance(
                      internal,
                      i.type(),
                      resource.substring(resource.indexOf('.') + 1),
                      i.attributes(),
                      i.dependencies().stream().map(ModuleAddresses::internal).toList(),
                      i.tainted(),
                      i.createBeforeDestroy(),
                      i.skipDestroy(),
                      i.sensitivePaths()));
            });
    return new PriorState(prior.serial(), prior.lineage(), out, prior.document());
  }

  /** The action with Terraform's addresses. */
  static PlannedAction external(PlannedAction a) {
    String address = external(a.address());
    if (address.equals(a.address())
        && a.dependencies().stream().noneMatch(d -> d.contains(".module."))
        && a.waitFor().stream().noneMatch(d -> d.contains(".module."))) {
      return a;
    }
    return new PlannedAction(
        address,
        a.type(),
        shortName(a.name()),
        a.action(),
        a.reason(),
        a.before(),
        a.after(),
        a.afterUnknown(),
        a.replacePaths(),
        external(a.waitFor()),
        external(a.dependencies()),
        a.createBeforeDestroy(),
        a.skipDestroy(),
        a.sensitivePaths(),
        a.unknownParts(),
        external(a.previousAddress()));
  }

  /** The action with flattened addresses (what the configuration model knows). */
  public static PlannedAction internal(PlannedAction a) {
    String address = internal(a.address());
    if (address == null || address.equals(a.address())) {
      return a;
    }
    String resource = InstanceKey.resourceOf(address);
    return new PlannedAction(
        address,
        a.type(),
        resource.substring(resource.indexOf('.') + 1),
        a.action(),
        a.reason(),
        a.before(),
        a.after(),
        a.afterUnknown(),
        a.replacePaths(),
        a.waitFor().stream().map(ModuleAddresses::internal).toList(),
        a.dependencies().stream().map(ModuleAddresses::internal).toList(),
        a.createBeforeDestroy(),
        a.skipDestroy(),
        a.sensitivePaths(),
        a.unknownParts(),
        internal(a.previousAddress()));
  }

  /** A map by Terraform address as a map by flattened address. */
  public static <V> Map<String, V> internalKeys(Map<String, V> byAddress) {
    if (byAddress.keySet().stream().noneMatch(a -> a.startsWith("module."))) {
      return byAddress;
    }
    Map<String, V> out = new LinkedHashMap<>();
    byAddress.forEach(
        (k, v) -> {
          String internal = internal(k);
          out.put(internal == null ? k : internal, v);
        });
    return out;
  }
}
