package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Terraform's JSON plan representation ({@code terraform show -json}) of a {@link Plan}: {@code
 * format_version}, {@code resource_changes[]} with {@code change.actions}, {@code before}, {@code
 * after}, {@code after_unknown}, {@code replace_paths} and {@code action_reason}. Stagecraft's own
 * fields (workspace, prior serial and lineage, the order constraints) are under {@code stagecraft}.
 * Keys are sorted so the same plan always renders to the same bytes (its digest).
 */
public final class PlanJson {
  public static final String FORMAT_VERSION = "1.2";
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private PlanJson() {}

  public static String render(Plan plan) {
    try {
      return MAPPER.writeValueAsString(toMap(plan));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Map<String, Object> toMap(Plan plan) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("format_version", FORMAT_VERSION);
    root.put("terraform_version", "stagecraft-0.1.0");
    List<Object> changes = new ArrayList<>();
    for (PlannedAction a : plan.actions()) {
      changes.add(resourceChange(a));
    }
    root.put("resource_changes", changes);
    root.put("output_changes", Map.of());
    root.put("errored", false);
    Map<String, Object> ours = new LinkedHashMap<>();
    ours.put("workspace", plan.workspace());
    ours.put("prior_serial", plan.priorSerial());
    ours.put("prior_lineage", plan.priorLineage());
    ours.put("destroy", plan.destroy());
    Map<String, Object> waits = new TreeMap<>();
    plan.actions().forEach(a -> waits.put(a.address(), a.waitFor()));
    ours.put("wait_for", waits);
    root.put("stagecraft", ours);
    return root;
  }

  private static Map<String, Object> resourceChange(PlannedAction a) {
    Map<String, Object> rc = new LinkedHashMap<>();
    rc.put("address", a.address());
    rc.put("mode", "managed");
    rc.put("type", a.type());
    rc.put("name", a.name());
    Object index = index(a.address());
    if (index != null) {
      rc.put("index", index);
    }
    rc.put("provider_name", "stagecraft.dev/builtin/stagecraft");
    Map<String, Object> change = new LinkedHashMap<>();
    change.put("actions", a.action().terraformActions());
    change.put("before", a.before());
    change.put("after", a.after());
    Map<String, Object> unknown = new TreeMap<>();
    a.afterUnknown().forEach(k -> unknown.put(k, true));
    change.put("after_unknown", unknown);
    change.put("before_sensitive", Map.of());
    change.put("after_sensitive", Map.of());
    if (!a.replacePaths().isEmpty()) {
      change.put("replace_paths", a.replacePaths().stream().sorted().map(List::of).toList());
    }
    rc.put("change", change);
    if (a.reason() != null) {
      rc.put("action_reason", a.reason().terraformName());
    }
    return rc;
  }

  private static Object index(String address) {
    int open = address.indexOf('[');
    if (open < 0 || !address.endsWith("]")) {
      return null;
    }
    String key = address.substring(open + 1, address.length() - 1);
    if (key.startsWith("\"")) {
      return key.substring(1, key.length() - 1);
    }
    try {
      return Long.parseLong(key);
    } catch (NumberFormatException e) {
      return key;
    }
  }
}
