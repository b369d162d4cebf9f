package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Terraform's JSON plan representation ({@code terraform show -json}) of a plan, written and read
 * back: {@link #encode(Plan)} writes it (the one writer: {@link PlanJson} renders through it), and
 * {@link #decode(String)} reads it back into a {@link PlanDocument}, which re-encodes to the same
 * bytes. Keys are sorted, so the same plan always renders to the same bytes (its digest).
 *
 * <p>What is read: the fields Stagecraft writes ({@code format_version} 1.x, {@code
 * resource_changes}, {@code output_changes}, {@code prior_state}, {@code checks}, {@code errored},
 * {@code stagecraft}). Fields of Terraform's format that Stagecraft does not write ({@code
 * planned_values}, {@code configuration}, …) are ignored, so a newer writer's additions do not make
 * an older reader refuse a plan. A document that is not a plan is refused with an {@link
 * InvalidPlanException} naming the JSON path of the first problem.
 */
public final class PlanCodec {
  static final ObjectMapper MAPPER =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private PlanCodec() {}

  /** The plan's JSON document (compact, keys sorted). */
  public static String encode(Plan plan) {
    return encode(PlanDocument.of(plan));
  }

  /** The document's JSON (compact, keys sorted): what it was decoded from, when written here. */
  public static String encode(PlanDocument document) {
    return write(toMap(document));
  }

  /**
   * Reads a plan document back.
   *
   * @throws InvalidPlanException when {@code json} is not JSON or not a plan document
   */
  public static PlanDocument decode(String json) {
    return PlanDecoder.decode(json);
  }

  /**
   * Reads a plan document already parsed (as a saved plan file holds one).
   *
   * @throws InvalidPlanException when {@code json} is not a plan document
   */
  public static PlanDocument decode(JsonNode json) {
    return PlanDecoder.decode(json);
  }

  static String write(Object document) {
    try {
      return MAPPER.writeValueAsString(document);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The document as JSON-able maps and lists (the form {@link #encode} writes). */
  public static Map<String, Object> toMap(PlanDocument d) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("format_version", d.formatVersion());
    root.put("terraform_version", d.terraformVersion());
    List<Object> changes = new ArrayList<>();
    d.resourceChanges().forEach(rc -> changes.add(resourceChange(rc)));
    root.put("resource_changes", changes);
    Map<String, Object> outputs = new TreeMap<>();
    d.outputChanges().forEach((name, o) -> outputs.put(name, output(o)));
    root.put("output_changes", outputs);
    if (d.priorState() != null) {
      root.put("prior_state", d.priorState());
    }
    if (!d.checks().isEmpty()) {
      root.put("checks", d.checks().stream().map(PlanCodec::check).toList());
    }
    root.put("errored", d.errored());
    if (d.stagecraft() != null) {
      root.put("stagecraft", stagecraft(d.stagecraft()));
    }
    return root;
  }

  static Map<String, Object> resourceChange(PlanDocument.ResourceChange r) {
    Map<String, Object> rc = new LinkedHashMap<>();
    rc.put("address", r.address());
    if (r.moduleAddress() != null) {
      rc.put("module_address", r.moduleAddress());
    }
    rc.put("mode", r.mode());
    rc.put("type", r.type());
    rc.put("name", r.name());
    if (r.index() != null) {
      rc.put("index", r.index());
    }
    if (r.previousAddress() != null) {
      rc.put("previous_address", r.previousAddress());
    }
    rc.put("provider_name", r.providerName());
    PlanDocument.Change c = r.change();
    Map<String, Object> change = new LinkedHashMap<>();
    change.put("actions", c.actions().terraformActions());
    change.put("before", c.before());
    change.put("after", c.after());
    change.put("after_unknown", c.afterUnknown());
    change.put("before_sensitive", c.beforeSensitive() == null ? false : c.beforeSensitive());
    change.put("after_sensitive", c.afterSensitive() == null ? false : c.afterSensitive());
    if (!c.replacePaths().isEmpty()) {
      change.put("replace_paths", c.replacePaths());
    }
    rc.put("change", change);
    if (r.reason() != null) {
      rc.put("action_reason", r.reason().terraformName());
    }
    return rc;
  }

  private static Map<String, Object> output(PlanDocument.Output o) {
    Map<String, Object> change = new LinkedHashMap<>();
    change.put("actions", o.actions().terraformActions());
    change.put("before", o.before());
    change.put("after", o.after());
    change.put("after_unknown", o.afterUnknown());
    change.put("before_sensitive", o.beforeSensitive());
    change.put("after_sensitive", o.afterSensitive());
    return change;
  }

  /**
   * Terraform's {@code checks} entry of a check block ({@code internal/command/jsonchecks}): its
   * static address, aggregate status, and its one instance with the failed assertions' messages as
   * {@code problems}.
   */
  private static Map<String, Object> check(PlanDocument.Check c) {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("address", Map.of("to_display", c.address()));
    instance.put("status", c.status().jsonName());
    if (!c.problems().isEmpty()) {
      instance.put(
          "problems",
          c.problems().stream().map(m -> Map.<String, Object>of("message", m)).toList());
    }
    Map<String, Object> address = new LinkedHashMap<>();
    address.put("kind", "check");
    address.put("name", c.name());
    address.put("to_display", c.address());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("address", address);
    out.put("status", c.status().jsonName());
    out.put("instances", List.of(instance));
    return out;
  }

  private static Map<String, Object> stagecraft(PlanDocument.Stagecraft s) {
    Map<String, Object> ours = new LinkedHashMap<>();
    ours.put("workspace", s.workspace());
    ours.put("prior_serial", s.priorSerial());
    ours.put("prior_lineage", s.priorLineage());
    ours.put("destroy", s.destroy());
    ours.put("wait_for", s.waitFor());
    if (!s.lifecycle().isEmpty()) {
      Map<String, Object> lifecycle = new TreeMap<>();
      s.lifecycle()
          .forEach(
              (address, flags) -> {
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("create_before_destroy", flags.createBeforeDestroy());
                f.put("skip_destroy", flags.skipDestroy());
                lifecycle.put(address, f);
              });
      ours.put("lifecycle", lifecycle);
    }
    return ours;
  }

  /**
   * A document that is not a plan: {@link #path()} names where (as {@code
   * resource_changes[2].change.actions}; {@code (document)} for the whole), the message says what
   * is wrong there.
   */
  public static final class InvalidPlanException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String path;

    InvalidPlanException(String path, String problem) {
      super("not a plan document: " + path + ": " + problem);
      this.path = path;
    }

    public String path() {
      return path;
    }
  }
}
