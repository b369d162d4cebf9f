package dev.stagecraft.state.history;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a pushed Terraform v4 document holds beyond Stagecraft's own model, kept so that a pull
 * gives back what was pushed (unknown fields included): the document's top-level fields other than
 * {@code resources} ({@code terraform_version}, {@code outputs}, {@code check_results}, anything
 * newer), each resource's fields with {@code instances} reduced to its deposed objects, and each
 * current instance object's fields except {@code attributes}. A run that writes or removes an
 * instance drops that instance's extras (the run's write is the whole instance); removing the last
 * instance of a resource without deposed objects drops the resource's extras too.
 *
 * @param top the document's fields, or null for a state never pushed (rendered with defaults)
 * @param resources by resource address ({@link InstanceAddress#resourceAddress}), in the pushed
 *     document's order (a pull lists resources in that order, then those added by runs)
 * @param instances by canonical instance address
 */
public record StateExtras(
    Map<String, Object> top,
    Map<String, Map<String, Object>> resources,
    Map<String, Map<String, Object>> instances) {

  public static final StateExtras NONE = new StateExtras(null, Map.of(), Map.of());

  public StateExtras {
    top = top == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(top));
    resources = Collections.unmodifiableMap(new LinkedHashMap<>(resources));
    instances = Collections.unmodifiableMap(new TreeMap<>(instances));
  }

  /** These extras without the instance at {@code address} (and its resource's, when emptied). */
  StateExtras withoutInstance(String address, Map<String, InstanceState> remaining) {
    if (resources.isEmpty() && !instances.containsKey(address)) {
      return this; // nothing kept for it (a state never pushed): no copies, no address parsing
    }
    Map<String, Map<String, Object>> nextInstances = new TreeMap<>(instances);
    nextInstances.remove(address);
    Map<String, Map<String, Object>> nextResources = new LinkedHashMap<>(resources);
    String resource = InstanceAddress.parse(address).resourceAddress();
    Map<String, Object> extras = nextResources.get(resource);
    if (extras != null
        && extras.get("instances") instanceof List<?> deposed
        && deposed.isEmpty()
        && remaining.keySet().stream()
            .noneMatch(a -> InstanceAddress.parse(a).resourceAddress().equals(resource))) {
      nextResources.remove(resource);
    }
    if (nextInstances.equals(instances) && nextResources.equals(resources)) {
      return this;
    }
    return new StateExtras(top, nextResources, nextInstances);
  }
}
