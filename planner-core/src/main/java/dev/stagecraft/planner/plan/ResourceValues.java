package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.eval.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values expressions see for resources: each resource's instance keys as planning expanded
 * them, and its value (one instance, a list for {@code count}, a map for {@code for_each}) built
 * from planned or applied objects, falling back to prior state and then to unknown. One per walk
 * ({@link WalkScope}); the value cache is guarded by this object's lock, as the apply context's
 * walk is used from several threads.
 */
final class ResourceValues {
  private final Map<String, List<InstanceKey>> expansions = new LinkedHashMap<>();
  private final Map<String, InstanceKey> instanceKeys = new LinkedHashMap<>();
  private final Map<String, Value> values = new HashMap<>();
  private Map<String, Value> valuesOf;

  /** Records the instances planning found for a resource (count / for_each expanded). */
  void recordExpansion(String resourceAddress, List<InstanceKey> keys) {
    expansions.put(resourceAddress, List.copyOf(keys));
    for (InstanceKey k : keys) {
      instanceKeys.put(resourceAddress + k.suffix(), k);
    }
  }

  /** A copy with the recorded expansions and no cached values (for the next walk). */
  ResourceValues withExpansionsOnly() {
    ResourceValues copy = new ResourceValues();
    synchronized (this) {
      copy.expansions.putAll(expansions);
      copy.instanceKeys.putAll(instanceKeys);
    }
    return copy;
  }

  /** The key of an instance planned from configuration, or the one written in its address. */
  InstanceKey instanceKey(String address) {
    return instanceKeys.getOrDefault(address, InstanceKey.parse(address));
  }

  /**
   * The value of a resource (a list or map of instances when repeated), built once per objects map
   * and kept until an instance of the resource changes ({@link #invalidate}): the instances of a
   * for_each resource that all refer to another for_each resource then share one value instead of
   * rebuilding it each.
   */
  synchronized Value of(ResourceDecl r, Map<String, Value> objects, PriorState prior) {
    if (valuesOf != objects) {
      values.clear();
      valuesOf = objects;
    }
    Value cached = values.get(r.address());
    if (cached == null) {
      cached = build(r, objects, prior);
      values.put(r.address(), cached);
    }
    return cached;
  }

  /** Forgets the cached value of a resource after one of its instances changed. */
  synchronized void invalidate(String resourceAddress) {
    values.remove(resourceAddress);
  }

  private Value build(ResourceDecl r, Map<String, Value> objects, PriorState prior) {
    List<InstanceKey> keys = expansions.get(r.address());
    boolean repeated = r.count().isPresent() || r.forEach().isPresent();
    if (keys == null) {
      return repeated ? Value.unknown() : instanceValue(r.address(), objects, prior);
    }
    if (r.count().isPresent()) {
      List<Value> list = new ArrayList<>();
      keys.forEach(k -> list.add(instanceValue(r.address() + k.suffix(), objects, prior)));
      return Value.list(list);
    }
    if (r.forEach().isPresent()) {
      Map<String, Value> map = new LinkedHashMap<>();
      keys.forEach(
          k -> map.put((String) k.key(), instanceValue(r.address() + k.suffix(), objects, prior)));
      return Value.object(map);
    }
    return instanceValue(r.address(), objects, prior);
  }

  private static Value instanceValue(String address, Map<String, Value> objects, PriorState prior) {
    Value value = objects.get(address);
    if (value != null) {
      return value;
    }
    return prior.instance(address).map(PriorInstance::value).orElse(Value.unknown());
  }
}
