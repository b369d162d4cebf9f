package dev.stagecraft.state.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a {@link WorkspaceState} as a Terraform state v4 document (as plain maps and lists, in
 * Terraform's key order, ready for any JSON writer). Instances are grouped into resources by
 * module, mode, type and name; {@code count}/{@code for_each} instances carry {@code index_key};
 * {@code create_before_destroy} and {@code skip_destroy} appear (as {@code true}) only when set.
 */
public final class TerraformStateV4 {
  public static final String TERRAFORM_VERSION = "stagecraft-0.1.0";
  public static final String PROVIDER = "provider[\"stagecraft.dev/builtin/stagecraft\"]";

  private TerraformStateV4() {}

  /**
   * @param lineageWhenEmpty the lineage shown for a workspace without state (not persisted)
   */
  public static Map<String, Object> render(WorkspaceState state, String lineageWhenEmpty) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", 4);
    doc.put("terraform_version", TERRAFORM_VERSION);
    doc.put("serial", state.serial());
    doc.put("lineage", state.lineage() == null ? lineageWhenEmpty : state.lineage());
    doc.put("outputs", Map.of());
    Map<String, List<Map.Entry<InstanceAddress, InstanceState>>> groups = new LinkedHashMap<>();
    for (InstanceState instance : state.instances().values()) {
      InstanceAddress address = InstanceAddress.parse(instance.address());
      groups
          .computeIfAbsent(address.resourceAddress(), k -> new ArrayList<>())
          .add(Map.entry(address, instance));
    }
    List<Map<String, Object>> resources = new ArrayList<>();
    for (List<Map.Entry<InstanceAddress, InstanceState>> group : groups.values()) {
      group.sort(Comparator.comparing(e -> e.getKey().indexKey(), TerraformStateV4::compareKeys));
      InstanceAddress first = group.get(0).getKey();
      Map<String, Object> resource = new LinkedHashMap<>();
      if (first.module() != null) {
        resource.put("module", first.module());
      }
      resource.put("mode", first.mode());
      resource.put("type", first.type());
      resource.put("name", first.name());
      resource.put("provider", PROVIDER);
      List<Map<String, Object>> instances = new ArrayList<>();
      for (Map.Entry<InstanceAddress, InstanceState> entry : group) {
        InstanceState instance = entry.getValue();
        Map<String, Object> json = new LinkedHashMap<>();
        if (entry.getKey().indexKey() != null) {
          json.put("index_key", entry.getKey().indexKey());
        }
        if (instance.tainted()) {
          json.put("status", "tainted");
        }
        json.put("schema_version", 0);
        json.put("attributes", instance.attributes());
        json.put("sensitive_attributes", List.of());
        json.put("dependencies", instance.dependencies());
        // Omitted when false, as Terraform omits create_before_destroy; skip_destroy is our
        // extension (lifecycle { destroy = false }), read back by the planner's PriorState.
        if (instance.createBeforeDestroy()) {
          json.put("create_before_destroy", true);
        }
        if (instance.skipDestroy()) {
          json.put("skip_destroy", true);
        }
        instances.add(json);
      }
      resource.put("instances", instances);
      resources.add(resource);
    }
    doc.put("resources", resources);
    return doc;
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
