package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Terraform's JSON plan representation ({@code terraform show -json}) of a {@link Plan}: {@code
 * format_version}, {@code resource_changes[]} with {@code change.actions}, {@code before}, {@code
 * after}, {@code after_unknown}, {@code replace_paths} and {@code action_reason}; {@code
 * output_changes}; {@code prior_state} (the v4 document planned against); {@code checks} (the
 * results of {@code check} blocks, when there are any). Sensitive values are never written: a
 * sensitive attribute is left out of {@code before}/{@code after} and named in {@code
 * before_sensitive}/{@code after_sensitive}; a sensitive output has null values and {@code
 * after_sensitive: true}. Stagecraft's own fields (workspace, prior serial and lineage, the order
 * constraints, the lifecycle flags that go to state) are under {@code stagecraft}. Keys are sorted
 * so the same plan always renders to the same bytes (its digest).
 */
public final class PlanJson {
  public static final String FORMAT_VERSION = "1.2";
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private PlanJson() {}

  /** Any JSON-able map rendered with sorted keys (the form digests are computed over). */
  static String canonical(Map<String, Object> document) {
    try {
      return MAPPER.writeValueAsString(document);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

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
    Map<String, Object> outputs = new TreeMap<>();
    plan.outputChanges().forEach(o -> outputs.put(o.name(), outputChange(o)));
    root.put("output_changes", outputs);
    if (plan.priorState() != null) {
      root.put("prior_state", plan.priorState());
    }
    if (!plan.checks().isEmpty()) {
      root.put(
          "checks",
          plan.checks().stream()
              .sorted(Comparator.comparing(CheckResult::address))
              .map(PlanJson::checkResult)
              .toList());
    }
    root.put("errored", false);
    Map<String, Object> ours = new LinkedHashMap<>();
    ours.put("workspace", plan.workspace());
    ours.put("prior_serial", plan.priorSerial());
    ours.put("prior_lineage", plan.priorLineage());
    ours.put("destroy", plan.destroy());
    Map<String, Object> waits = new TreeMap<>();
    plan.actions().forEach(a -> waits.put(a.address(), a.waitFor()));
    ours.put("wait_for", waits);
    Map<String, Object> lifecycle = new TreeMap<>();
    plan.actions()
        .forEach(
            a -> {
              if (a.createBeforeDestroy() || a.skipDestroy()) {
                lifecycle.put(
                    a.address(),
                    Map.of(
                        "create_before_destroy",
                        a.createBeforeDestroy(),
                        "skip_destroy",
                        a.skipDestroy()));
              }
            });
    if (!lifecycle.isEmpty()) {
      ours.put("lifecycle", lifecycle);
    }
    root.put("stagecraft", ours);
    return root;
  }

  /**
   * What one change does, as {@link Plan#changeDigests} digests it: its {@code resource_changes}
   * entry (actions, before, after, unknown and sensitive attributes, replace paths, reason) with
   * the lifecycle flags and dependencies that go to state. Not its order constraints: which other
   * changes it waits for depends on what else the plan still does.
   */
  static Map<String, Object> changeDocument(PlannedAction a) {
    Map<String, Object> document = resourceChange(a);
    document.put("create_before_destroy", a.createBeforeDestroy());
    document.put("skip_destroy", a.skipDestroy());
    document.put("dependencies", a.dependencies().stream().sorted().toList());
    return document;
  }

  /**
   * Whether {@code planned}, a change planned again after some of an approved plan's changes were
   * applied, is the change {@code approved} approved ({@link Plan#changeDocuments}, docs/adr/0051):
   * the same document, except that an attribute the approved change did not know yet (in its {@code
   * after_unknown}) may now have any value, known or not, as applying the approved plan would have
   * given it. An attribute unknown now but known when approved is not covered.
   *
   * @param approved a document of {@link Plan#changeDocuments}, as recorded
   * @param planned the document of the same address in the plan made again
   */
  public static boolean covers(String approved, String planned) {
    try {
      JsonNode a = MAPPER.readTree(approved);
      JsonNode p = MAPPER.readTree(planned);
      if (!(a.path("change") instanceof ObjectNode ac)
          || !(p.path("change") instanceof ObjectNode pc)) {
        return a.equals(p);
      }
      Set<String> wasUnknown = new HashSet<>();
      ac.path("after_unknown").fieldNames().forEachRemaining(wasUnknown::add);
      Set<String> isUnknown = new HashSet<>();
      pc.path("after_unknown").fieldNames().forEachRemaining(isUnknown::add);
      if (!wasUnknown.containsAll(isUnknown)) {
        return false;
      }
      for (ObjectNode change : List.of(ac, pc)) {
        if (change.get("after") instanceof ObjectNode after) {
          after.remove(wasUnknown);
        }
        change.remove("after_unknown");
      }
      return a.equals(p);
    } catch (JsonProcessingException e) {
      return false;
    }
  }

  private static Map<String, Object> resourceChange(PlannedAction a) {
    Map<String, Object> rc = new LinkedHashMap<>();
    rc.put("address", a.address());
    String module = ModuleAddresses.moduleOf(a.address());
    if (module != null) {
      rc.put("module_address", module);
    }
    rc.put("mode", "managed");
    rc.put("type", a.type());
    rc.put("name", a.name());
    Object index = index(a.address());
    if (index != null) {
      rc.put("index", index);
    }
    if (a.previousAddress() != null) {
      rc.put("previous_address", a.previousAddress());
    }
    rc.put("provider_name", "stagecraft.dev/builtin/stagecraft");
    Map<String, Object> change = new LinkedHashMap<>();
    change.put("actions", a.action().terraformActions());
    change.put("before", redacted(a.before(), a.sensitivePaths()));
    change.put("after", redacted(a.after(), a.sensitivePaths()));
    Map<String, Object> unknown = new TreeMap<>();
    a.afterUnknown().forEach(k -> unknown.put(k, a.unknownParts().getOrDefault(k, true)));
    change.put("after_unknown", unknown);
    Map<String, Object> sensitive = new TreeMap<>();
    a.sensitivePaths().forEach(k -> sensitive.put(k, true));
    change.put("before_sensitive", a.before() == null ? false : sensitive);
    change.put("after_sensitive", a.after() == null ? false : sensitive);
    if (!a.replacePaths().isEmpty()) {
      change.put("replace_paths", a.replacePaths().stream().sorted().map(List::of).toList());
    }
    rc.put("change", change);
    if (a.reason() != null) {
      rc.put("action_reason", a.reason().terraformName());
    }
    return rc;
  }

  /** Sensitive attributes are left out; {@code *_sensitive} says which. */
  private static Map<String, Object> redacted(Map<String, Object> values, Set<String> sensitive) {
    if (values == null || sensitive.isEmpty()) {
      return values;
    }
    Map<String, Object> out = new LinkedHashMap<>(values);
    out.keySet().removeAll(sensitive);
    return out;
  }

  private static Map<String, Object> outputChange(OutputChange o) {
    Map<String, Object> change = new LinkedHashMap<>();
    change.put("actions", o.actions());
    change.put("before", o.before());
    change.put("after", o.after());
    change.put("after_unknown", o.afterUnknown());
    change.put("before_sensitive", o.sensitive());
    change.put("after_sensitive", o.sensitive());
    return change;
  }

  /**
   * Terraform's {@code checks} entry of a check block ({@code internal/command/jsonchecks}): its
   * static address, aggregate status, and its one instance with the failed assertions' messages as
   * {@code problems}.
   */
  private static Map<String, Object> checkResult(CheckResult c) {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("address", Map.of("to_display", c.address()));
    instance.put("status", c.status().jsonName());
    if (!c.problems().isEmpty()) {
      instance.put(
          "problems",
          c.problems().stream().map(m -> Map.<String, Object>of("message", m)).toList());
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("address", Map.of("kind", "check", "name", c.name(), "to_display", c.address()));
    out.put("status", c.status().jsonName());
    out.put("instances", List.of(instance));
    return out;
  }

  private static Object index(String address) {
    Object key = InstanceKey.parse(address).key();
    return key instanceof Integer i ? Long.valueOf(i) : key;
  }
}
