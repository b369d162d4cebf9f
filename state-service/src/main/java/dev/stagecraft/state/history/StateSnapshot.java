package dev.stagecraft.state.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a {@link WorkspaceState} into plain maps, lists, strings, numbers and booleans (ready for
 * any JSON writer) and back, without loss: serial, lineage and every instance with all its fields.
 * Attribute values are copied as they are (nested maps keep their key order and null values).
 *
 * <p>A snapshot is derived data: the state after the first {@code n} events of a workspace, so that
 * a fold can start there instead of at the first event. The history stays the truth; a snapshot in
 * a format this code does not know is simply not used (see {@link #FORMAT}).
 *
 * <p>Wire form: {@code {"format":2,"serial":7,"lineage":"…","instances":[{"address":…,
 * "resourceType":…,"attributes":{…},"dependencies":[…],"tainted":false,
 * "createBeforeDestroy":false,"skipDestroy":false}],"extras":{"top":{…}|null,"resources":{…},
 * "instances":{…}},"outputs":{…}}}, instances sorted by address; {@code extras} is the state's
 * {@link StateExtras} (what a pushed document held beyond the model), {@code outputs} its root
 * outputs.
 */
public final class StateSnapshot {
  /**
   * The version of the wire form written by {@link #toSnapshot}. A reader ignores snapshots of any
   * other format (and folds from an older one or from the first event), so a change of the form is
   * a new number, never an edit of this one.
   */
  public static final int FORMAT = 4;

  /**
   * Format 3 (before the outputs were modelled) is still read: its outputs are those its pushed
   * document's fields hold. No instance that knew only format 3 can have folded an {@code
   * outputs_written} event (it does not read one), so such a snapshot lost no recorded outputs.
   */
  public static final int FORMAT_BEFORE_OUTPUTS = 3;

  // Format 4 added "outputs" (a run's recorded root outputs, docs/adr/0064).
  // Format 3 added "extras" (pushed documents). Format 2 snapshots are not read: one written by an
  // older instance after a push would have lost the pushed document's extras.
  // Format 1 had no createBeforeDestroy/skipDestroy. It is not read: a format-1 snapshot written
  // by an older instance after a newer one recorded the flags would have dropped them, so such
  // snapshots are skipped and the fold starts from an older snapshot or the first event (the
  // store then writes a format-2 snapshot with its next write).

  private StateSnapshot() {}

  /** The state as plain, JSON-able data. */
  public static Map<String, Object> toSnapshot(WorkspaceState state) {
    List<Object> instances = new ArrayList<>();
    for (InstanceState instance : state.instances().values()) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("address", instance.address());
      json.put("resourceType", instance.resourceType());
      json.put("attributes", copy(instance.attributes()));
      json.put("dependencies", copy(instance.dependencies()));
      json.put("tainted", instance.tainted());
      json.put("createBeforeDestroy", instance.createBeforeDestroy());
      json.put("skipDestroy", instance.skipDestroy());
      instances.add(json);
    }
    Map<String, Object> snapshot = new LinkedHashMap<>();
    snapshot.put("format", FORMAT);
    snapshot.put("serial", state.serial());
    snapshot.put("lineage", state.lineage());
    snapshot.put("instances", instances);
    Map<String, Object> extras = new LinkedHashMap<>();
    extras.put("top", copy(state.extras().top()));
    // a list, not an object: the order of resources is kept (jsonb does not keep key order)
    List<Object> resources = new ArrayList<>();
    state
        .extras()
        .resources()
        .forEach(
            (address, fields) -> {
              Map<String, Object> entry = new LinkedHashMap<>();
              entry.put("address", address);
              entry.put("fields", copy(fields));
              resources.add(entry);
            });
    extras.put("resources", resources);
    extras.put("instances", copy(state.extras().instances()));
    snapshot.put("extras", extras);
    snapshot.put("outputs", copy(state.outputs()));
    return snapshot;
  }

  /**
   * The state a snapshot describes.
   *
   * @throws IllegalArgumentException when {@code snapshot} is not a snapshot of {@link #FORMAT}
   */
  public static WorkspaceState fromSnapshot(Map<String, ?> snapshot) {
    Object format = snapshot.get("format");
    if (!(format instanceof Number n)
        || (n.intValue() != FORMAT && n.intValue() != FORMAT_BEFORE_OUTPUTS)) {
      throw new IllegalArgumentException(
          "state snapshot has format " + format + ", this code reads format " + FORMAT);
    }
    Map<String, InstanceState> instances = new TreeMap<>();
    for (Object item : list(snapshot.get("instances"), "instances")) {
      Map<?, ?> json = map(item, "instance");
      String address = text(json.get("address"), "address");
      if (address == null) {
        throw new IllegalArgumentException("state snapshot has an instance without an address");
      }
      List<String> dependencies = new ArrayList<>();
      for (Object dependency : list(json.get("dependencies"), "dependencies")) {
        dependencies.add(text(dependency, "dependency"));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> attributes =
          (Map<String, Object>) copy(map(json.get("attributes"), "attributes"));
      instances.put(
          address,
          new InstanceState(
              address,
              text(json.get("resourceType"), "resourceType"),
              attributes,
              Collections.unmodifiableList(dependencies),
              bool(json.get("tainted"), "tainted"),
              bool(json.get("createBeforeDestroy"), "createBeforeDestroy"),
              bool(json.get("skipDestroy"), "skipDestroy")));
    }
    Map<?, ?> extras = map(snapshot.get("extras"), "extras");
    Object top = extras.get("top");
    Map<String, Object> topFields = top == null ? null : objects(map(top, "extras.top"));
    Map<String, Object> outputs;
    if (((Number) format).intValue() == FORMAT) {
      outputs = objects(map(snapshot.get("outputs"), "outputs"));
    } else {
      // format 3: a pushed document's outputs were among its fields; they keep only their place
      outputs =
          topFields != null && topFields.get("outputs") instanceof Map<?, ?> m
              ? objects(m)
              : Map.of();
      if (topFields != null && topFields.containsKey("outputs")) {
        topFields = new LinkedHashMap<>(topFields);
        topFields.put("outputs", Map.of());
      }
    }
    return new WorkspaceState(
        number(snapshot.get("serial"), "serial"),
        text(snapshot.get("lineage"), "lineage"),
        instances,
        new StateExtras(
            topFields,
            resourceExtras(list(extras.get("resources"), "extras.resources")),
            nested(map(extras.get("instances"), "extras.instances"))),
        outputs);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> objects(Map<?, ?> map) {
    return (Map<String, Object>) copy(map);
  }

  private static Map<String, Map<String, Object>> resourceExtras(List<?> list) {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    for (Object item : list) {
      Map<?, ?> entry = map(item, "extras.resources entry");
      out.put(
          text(entry.get("address"), "extras.resources address"),
          objects(map(entry.get("fields"), "extras.resources fields")));
    }
    return out;
  }

  private static Map<String, Map<String, Object>> nested(Map<?, ?> map) {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(String.valueOf(k), objects(map(v, "extras entry"))));
    return out;
  }

  /** A deep, unmodifiable copy that keeps key order, null values and every leaf as it is. */
  private static Object copy(Object value) {
    return switch (value) {
      case Map<?, ?> m -> {
        Map<String, Object> copy = new LinkedHashMap<>();
        m.forEach((k, v) -> copy.put(String.valueOf(k), copy(v)));
        yield Collections.unmodifiableMap(copy);
      }
      case List<?> l -> {
        List<Object> copy = new ArrayList<>();
        l.forEach(v -> copy.add(copy(v)));
        yield Collections.unmodifiableList(copy);
      }
      case null, default -> value;
    };
  }

  private static List<?> list(Object value, String field) {
    if (value instanceof List<?> l) {
      return l;
    }
    throw new IllegalArgumentException("state snapshot field '" + field + "' is not a list");
  }

  private static Map<?, ?> map(Object value, String field) {
    if (value instanceof Map<?, ?> m) {
      return m;
    }
    throw new IllegalArgumentException("state snapshot field '" + field + "' is not an object");
  }

  private static String text(Object value, String field) {
    if (value == null || value instanceof String) {
      return (String) value;
    }
    throw new IllegalArgumentException("state snapshot field '" + field + "' is not a string");
  }

  private static boolean bool(Object value, String field) {
    if (value instanceof Boolean b) {
      return b;
    }
    throw new IllegalArgumentException("state snapshot field '" + field + "' is not a boolean");
  }

  private static long number(Object value, String field) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    throw new IllegalArgumentException("state snapshot field '" + field + "' is not a number");
  }
}
