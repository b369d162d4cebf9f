package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ModulePaths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instance addresses in modules, between Terraform's form ({@code
 * module.app["eu"].null_resource.x[0]}: plans, state, events, the CLI) and the form of the
 * flattened configuration the planner plans ({@code null_resource.module.app{"eu"}.x[0]}: the
 * resource {@code null_resource} named {@code module.app{"eu"}.x}, see {@code ModuleFlattener}).
 * Root addresses are the same in both. In the flattened form a module instance key is written in
 * braces, with {@code %}, {@code .}, brackets and braces inside it percent-encoded, so that the
 * name has no {@code [} and its last {@code .} ends the module path.
 */
public final class ModuleAddresses {
  private ModuleAddresses() {}

  /** The flattened form of a Terraform address; null when it is not a valid address. */
  public static String internal(String address) {
    if (address == null || !address.startsWith("module.")) {
      return address;
    }
    int pos = 0;
    StringBuilder path = new StringBuilder();
    while (address.startsWith("module.", pos)) {
      int nameEnd = identifierEnd(address, pos + "module.".length());
      if (nameEnd == pos + "module.".length()) {
        return null;
      }
      path.append(address, pos, nameEnd);
      pos = nameEnd;
      if (pos < address.length() && address.charAt(pos) == '[') {
        int close = keyEnd(address, pos);
        if (close < 0) {
          return null;
        }
        path.append('{').append(ModulePaths.encode(address.substring(pos + 1, close))).append('}');
        pos = close + 1;
      }
      if (pos >= address.length() || address.charAt(pos) != '.') {
        return null;
      }
      path.append('.');
      pos++;
    }
    int typeEnd = identifierEnd(address, pos);
    if (typeEnd == pos || typeEnd >= address.length() || address.charAt(typeEnd) != '.') {
      return null;
    }
    int nameEnd = identifierEnd(address, typeEnd + 1);
    if (nameEnd == typeEnd + 1) {
      return null;
    }
    String key = address.substring(nameEnd);
    if (!key.isEmpty()
        && (key.charAt(0) != '[' || keyEnd(address, nameEnd) != address.length() - 1)) {
      return null;
    }
    return address.substring(pos, typeEnd)
        + "."
        + path
        + address.substring(typeEnd + 1, nameEnd)
        + key;
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
    String resource = InstanceKey.resourceOf(address);
    String name = resource.substring(dot + 1);
    String key = address.substring(resource.length());
    int last = name.lastIndexOf('.');
    return ModulePaths.external(name.substring(0, last))
        + "."
        + type
        + "."
        + name.substring(last + 1)
        + key;
  }

  private static int identifierEnd(String s, int from) {
    int i = from;
    while (i < s.length()
        && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '-')) {
      i++;
    }
    return i;
  }

  /** The index of the {@code ]} that closes the key opened at {@code open}, or -1. */
  private static int keyEnd(String s, int open) {
    boolean quoted = false;
    for (int i = open + 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ']') {
        return i;
      }
    }
    return -1;
  }

  /** The name a flattened resource has in its module ({@code module.app.x} → {@code x}). */
  static String shortName(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }

  /**
   * The module instance of a Terraform address ({@code module.app["eu"]}), or null in the root
   * module.
   */
  static String moduleOf(String address) {
    String internal = internal(address);
    if (internal == null || internal.equals(address)) {
      return null;
    }
    String resource = InstanceKey.resourceOf(internal);
    String name = resource.substring(resource.indexOf('.') + 1);
    return ModulePaths.external(name.substring(0, name.lastIndexOf('.')));
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
              String flat = internal(address);
              String internal = flat == null ? address : flat;
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
        && (a.previousAddress() == null || !a.previousAddress().contains(".module."))
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
