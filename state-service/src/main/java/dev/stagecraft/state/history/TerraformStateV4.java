package dev.stagecraft.state.history;

import dev.stagecraft.schemas.seal.SealedValues;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders a {@link WorkspaceState} as a Terraform state v4 document (as plain maps and lists, in
 * Terraform's key order, ready for any JSON writer), and {@link #parse parses} a pushed document
 * into one. A state that was pushed renders its {@link StateExtras} back, so a pull gives the
 * pushed document (same JSON semantics). Instances are grouped into resources by module, mode, type
 * and name; {@code count}/{@code for_each} instances carry {@code index_key}; {@code
 * create_before_destroy} and {@code skip_destroy} appear (as {@code true}) only when set.
 */
public final class TerraformStateV4 {
  public static final String TERRAFORM_VERSION = "stagecraft-0.1.0";
  public static final String PROVIDER = "provider[\"stagecraft.dev/builtin/stagecraft\"]";

  private TerraformStateV4() {}

  /**
   * @param lineageWhenEmpty the lineage shown for a workspace without state (not persisted)
   */
  public static Map<String, Object> render(WorkspaceState state, String lineageWhenEmpty) {
    StateExtras extras = state.extras();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", 4);
    if (extras.top() == null) {
      doc.put("terraform_version", TERRAFORM_VERSION);
    }
    doc.put("serial", state.serial());
    doc.put("lineage", state.lineage() == null ? lineageWhenEmpty : state.lineage());
    if (extras.top() != null) {
      extras.top().forEach((k, v) -> doc.putIfAbsent(k, v));
    }
    // the outputs of the newest write (a push's or a run's), in the pushed document's place (a
    // pushed document without the field gets none back while nothing was recorded since)
    if (extras.top() == null || extras.top().containsKey("outputs") || !state.outputs().isEmpty()) {
      doc.put("outputs", sortedKeys(state.outputs()));
    }
    Map<String, List<Map.Entry<InstanceAddress, InstanceState>>> groups = new LinkedHashMap<>();
    // resources of a pushed document first, in its order (also those without a current instance)
    for (String resource : extras.resources().keySet()) {
      groups.put(resource, new ArrayList<>());
    }
    for (InstanceState instance : state.instances().values()) {
      InstanceAddress address = InstanceAddress.parse(instance.address());
      groups
          .computeIfAbsent(address.resourceAddress(), k -> new ArrayList<>())
          .add(Map.entry(address, instance));
    }
    List<Map<String, Object>> resources = new ArrayList<>();
    for (Map.Entry<String, List<Map.Entry<InstanceAddress, InstanceState>>> entry :
        groups.entrySet()) {
      List<Map.Entry<InstanceAddress, InstanceState>> group = entry.getValue();
      group.sort(Comparator.comparing(e -> e.getKey().indexKey(), TerraformStateV4::compareKeys));
      Map<String, Object> resourceExtras = extras.resources().get(entry.getKey());
      Map<String, Object> resource = new LinkedHashMap<>();
      if (resourceExtras != null) {
        resource.putAll(resourceExtras);
      } else {
        InstanceAddress first = group.get(0).getKey();
        if (first.module() != null) {
          resource.put("module", first.module());
        }
        resource.put("mode", first.mode());
        resource.put("type", first.type());
        resource.put("name", first.name());
        resource.put("provider", PROVIDER);
      }
      List<Object> instances = new ArrayList<>();
      for (Map.Entry<InstanceAddress, InstanceState> item : group) {
        instances.add(
            renderInstance(
                item.getKey(), item.getValue(), extras.instances().get(item.getValue().address())));
      }
      if (resourceExtras != null && resourceExtras.get("instances") instanceof List<?> deposed) {
        instances.addAll(deposed);
      }
      resource.put("instances", instances);
      resources.add(resource);
    }
    doc.put("resources", resources);
    return doc;
  }

  /** {@code value} with the keys of every object in it sorted; lists keep their order. */
  static Object sortedKeys(Object value) {
    if (value instanceof Map<?, ?> map) {
      TreeMap<String, Object> sorted = new TreeMap<>();
      map.forEach((k, v) -> sorted.put(String.valueOf(k), sortedKeys(v)));
      return new LinkedHashMap<>(sorted);
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(v -> out.add(sortedKeys(v)));
      return out;
    }
    return value;
  }

  /**
   * One current instance object: Stagecraft's defaults, or — for an instance from a pushed document
   * — its pushed fields with the modelled ones (index key, status, attributes, dependencies,
   * lifecycle flags) taken from the state.
   */
  private static Map<String, Object> renderInstance(
      InstanceAddress address, InstanceState instance, Map<String, Object> extras) {
    Map<String, Object> json = new LinkedHashMap<>();
    if (extras == null) {
      if (address.indexKey() != null) {
        json.put("index_key", address.indexKey());
      }
      if (instance.tainted()) {
        json.put("status", "tainted");
      }
      json.put("schema_version", 0);
      // keys sorted (as Terraform writes an object's attributes): the render must not depend on
      // whether the state came from the cache or from the stored events, whose jsonb reorders keys
      json.put("attributes", sortedKeys(instance.attributes()));
      json.put("sensitive_attributes", sealedPaths(instance.attributes(), List.of()));
      json.put("dependencies", instance.dependencies());
      // Omitted when false, as Terraform omits create_before_destroy; skip_destroy is our
      // extension (lifecycle { destroy = false }), read back by the planner's PriorState.
      if (instance.createBeforeDestroy()) {
        json.put("create_before_destroy", true);
      }
      if (instance.skipDestroy()) {
        json.put("skip_destroy", true);
      }
      return json;
    }
    json.putAll(extras);
    if (address.indexKey() != null) {
      json.put("index_key", address.indexKey());
    }
    if (instance.tainted()) {
      json.put("status", "tainted");
    } else {
      json.remove("status");
    }
    json.put("attributes", instance.attributes());
    List<Object> pushedSensitive =
        json.get("sensitive_attributes") instanceof List<?> l
            ? new ArrayList<Object>(l)
            : List.of();
    List<Object> sensitive = sealedPaths(instance.attributes(), pushedSensitive);
    if (sensitive.size() > pushedSensitive.size()) {
      json.put("sensitive_attributes", sensitive);
    }
    if (!instance.dependencies().isEmpty() || extras.containsKey("dependencies")) {
      json.put("dependencies", instance.dependencies());
    }
    flag(json, "create_before_destroy", instance.createBeforeDestroy());
    flag(json, "skip_destroy", instance.skipDestroy());
    return json;
  }

  /**
   * {@code known} followed by the Terraform paths of the sealed values in {@code attributes}
   * (docs/adr/0024) that it does not list: the planner seals sensitive attribute values, so a
   * sealed value marks its path sensitive, as Terraform records it ({@code
   * [{"type":"get_attr","value":"triggers"},{"type":"index","value":{"value":"pw","type":
   * "string"}}]}). The state service needs no key for this.
   */
  static List<Object> sealedPaths(Map<String, Object> attributes, List<Object> known) {
    List<Object> out = new ArrayList<>(known);
    if (attributes != null) {
      attributes.forEach(
          (name, value) -> {
            List<Object> path = new ArrayList<>();
            path.add(Map.of("type", "get_attr", "value", name));
            collectSealed(value, path, out);
          });
    }
    return out;
  }

  private static void collectSealed(Object value, List<Object> path, List<Object> out) {
    if (SealedValues.isSealed(value)) {
      List<Object> found = List.copyOf(path);
      if (!out.contains(found)) {
        out.add(found);
      }
    } else if (value instanceof Map<?, ?> m) {
      m.forEach(
          (k, v) -> {
            path.add(indexStep(String.valueOf(k), "string"));
            collectSealed(v, path, out);
            path.remove(path.size() - 1);
          });
    } else if (value instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        path.add(indexStep(i, "number"));
        collectSealed(l.get(i), path, out);
        path.remove(path.size() - 1);
      }
    }
  }

  private static Map<String, Object> indexStep(Object key, String type) {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("value", key);
    value.put("type", type);
    Map<String, Object> step = new LinkedHashMap<>();
    step.put("type", "index");
    step.put("value", value);
    return step;
  }

  /** Sets a boolean field when true; when false keeps an explicit {@code false}, else omits. */
  private static void flag(Map<String, Object> json, String field, boolean value) {
    if (value) {
      json.put(field, true);
    } else if (json.containsKey(field)) {
      json.put(field, false);
    }
  }

  /**
   * The state a Terraform v4 document describes: serial, lineage, current instances by address
   * (deposed objects are kept verbatim in the extras), and everything else as {@link StateExtras}.
   * The document must have passed {@link TerraformStateValidator}.
   */
  public static WorkspaceState parse(Map<String, Object> document) {
    Map<String, Object> top = new LinkedHashMap<>(document);
    top.remove("resources");
    // the outputs are modelled (WorkspaceState#outputs): the extras keep only their place
    Map<String, Object> outputs = new LinkedHashMap<>();
    if (top.get("outputs") instanceof Map<?, ?> pushed) {
      pushed.forEach((k, v) -> outputs.put(String.valueOf(k), v));
      top.put("outputs", Map.of());
    }
    long serial = ((Number) document.get("serial")).longValue();
    String lineage = (String) document.get("lineage");
    Map<String, InstanceState> instances = new TreeMap<>();
    Map<String, Map<String, Object>> resourceExtras = new LinkedHashMap<>();
    Map<String, Map<String, Object>> instanceExtras = new LinkedHashMap<>();
    Object resources = document.get("resources");
    for (Object item : resources instanceof List<?> l ? l : List.of()) {
      Map<?, ?> resource = (Map<?, ?>) item;
      String module = (String) resource.get("module");
      String mode = resource.get("mode") == null ? "managed" : (String) resource.get("mode");
      String type = (String) resource.get("type");
      String name = (String) resource.get("name");
      Map<String, Object> extras = copyOf(resource);
      List<Object> deposed = new ArrayList<>();
      String resourceAddress = null;
      for (Object o : resource.get("instances") instanceof List<?> l ? l : List.of()) {
        Map<?, ?> object = (Map<?, ?>) o;
        if (object.get("deposed") != null) {
          deposed.add(object);
          continue;
        }
        Object key = indexKey(object.get("index_key"));
        InstanceAddress address = new InstanceAddress(module, mode, type, name, key);
        resourceAddress = address.resourceAddress();
        @SuppressWarnings("unchecked")
        Map<String, Object> attributes =
            object.get("attributes") instanceof Map<?, ?> m
                ? (Map<String, Object>) m
                : new LinkedHashMap<>();
        List<String> dependencies = new ArrayList<>();
        if (object.get("dependencies") instanceof List<?> deps) {
          deps.forEach(d -> dependencies.add((String) d));
        }
        instances.put(
            address.toString(),
            new InstanceState(
                address.toString(),
                type,
                attributes,
                dependencies,
                "tainted".equals(object.get("status")),
                Boolean.TRUE.equals(object.get("create_before_destroy")),
                Boolean.TRUE.equals(object.get("skip_destroy"))));
        Map<String, Object> objectExtras = copyOf(object);
        objectExtras.remove("attributes");
        instanceExtras.put(address.toString(), objectExtras);
      }
      extras.put("instances", deposed);
      if (resourceAddress == null) {
        resourceAddress = new InstanceAddress(module, mode, type, name, null).resourceAddress();
      }
      resourceExtras.put(resourceAddress, extras);
    }
    return new WorkspaceState(
        serial, lineage, instances, new StateExtras(top, resourceExtras, instanceExtras), outputs);
  }

  /** JSON numbers as index keys are whole numbers (count): held as Long like parsed addresses. */
  private static Object indexKey(Object key) {
    return key instanceof Number n ? (Object) n.longValue() : key;
  }

  private static Map<String, Object> copyOf(Map<?, ?> map) {
    Map<String, Object> copy = new LinkedHashMap<>();
    map.forEach((k, v) -> copy.put(String.valueOf(k), v));
    return copy;
  }

  private static int compareKeys(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    return a.toString().compareTo(b.toString());
  }
}
