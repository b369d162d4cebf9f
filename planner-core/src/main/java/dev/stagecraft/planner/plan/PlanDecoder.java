package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.planner.plan.PlanCodec.InvalidPlanException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads {@link PlanCodec}'s JSON back into a {@link PlanDocument}, naming the JSON path of the
 * first thing that is wrong. Numbers keep their written form (fractions as {@link
 * java.math.BigDecimal}), so a document re-encodes to the same bytes.
 */
final class PlanDecoder {
  private static final ObjectMapper READER =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  private static final String ROOT = "(document)";

  private PlanDecoder() {}

  static PlanDocument decode(String json) {
    if (json == null) {
      throw new InvalidPlanException(ROOT, "no document");
    }
    JsonNode root;
    try {
      root = READER.readTree(json);
    } catch (JsonProcessingException e) {
      var at = e.getLocation();
      throw new InvalidPlanException(
          ROOT,
          "not JSON"
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
              + ": "
              + e.getOriginalMessage());
    }
    return decode(root);
  }

  static PlanDocument decode(JsonNode root) {
    At doc = new At(root, ROOT);
    doc.requireObject();
    At version = doc.field("format_version");
    String formatVersion = version.text();
    if (!formatVersion.equals("1") && !formatVersion.startsWith("1.")) {
      throw version.invalid(
          quoted(formatVersion)
              + " is not a version of Terraform's JSON plan format that is read (1.x)");
    }
    List<PlanDocument.ResourceChange> changes = new ArrayList<>();
    Map<String, String> seen = new HashMap<>();
    At list = doc.optionalField("resource_changes");
    if (list != null) {
      for (At rc : list.elements()) {
        PlanDocument.ResourceChange change = resourceChange(rc);
        String before = seen.putIfAbsent(change.address(), rc.path);
        if (before != null) {
          throw rc.field("address")
              .invalid(quoted(change.address()) + " is planned twice (also at " + before + ")");
        }
        changes.add(change);
      }
    }
    Map<String, PlanDocument.Output> outputs = new LinkedHashMap<>();
    At outputChanges = doc.optionalField("output_changes");
    if (outputChanges != null) {
      outputChanges.requireObject();
      outputChanges
          .node
          .fieldNames()
          .forEachRemaining(name -> outputs.put(name, output(outputChanges.field(name))));
    }
    List<PlanDocument.Check> checks = new ArrayList<>();
    At checkList = doc.optionalField("checks");
    if (checkList != null) {
      checkList.elements().forEach(c -> checks.add(check(c)));
    }
    At prior = doc.optionalField("prior_state");
    At errored = doc.optionalField("errored");
    At ours = doc.optionalField("stagecraft");
    return new PlanDocument(
        formatVersion,
        doc.field("terraform_version").text(),
        changes,
        outputs,
        prior == null ? null : prior.object(),
        checks,
        errored != null && errored.bool(),
        ours == null ? null : stagecraft(ours));
  }

  /** One {@code resource_changes} entry, at {@code path} in error messages. */
  static PlanDocument.ResourceChange resourceChange(JsonNode node, String path) {
    return resourceChange(new At(node, path));
  }

  private static PlanDocument.ResourceChange resourceChange(At rc) {
    rc.requireObject();
    String mode = rc.field("mode").text();
    if (!mode.equals("managed")) {
      throw rc.field("mode")
          .invalid(quoted(mode) + " is not a mode Stagecraft plans (only \"managed\" resources)");
    }
    At index = rc.optionalField("index");
    Object key = null;
    if (index != null) {
      if (index.node.isIntegralNumber() && index.node.canConvertToLong()) {
        key = index.node.longValue();
      } else if (index.node.isTextual()) {
        key = index.node.textValue();
      } else {
        throw index.invalid(
            index.node
                + " is not an instance key (a whole number for count, a string for"
                + " for_each)");
      }
    }
    At reason = rc.optionalField("action_reason");
    return new PlanDocument.ResourceChange(
        rc.field("address").text(),
        optionalText(rc, "module_address"),
        mode,
        rc.field("type").text(),
        rc.field("name").text(),
        key,
        optionalText(rc, "previous_address"),
        rc.field("provider_name").text(),
        change(rc.field("change")),
        reason == null ? null : reason(reason));
  }

  private static PlanDocument.Change change(At change) {
    change.requireObject();
    At replace = change.optionalField("replace_paths");
    List<List<Object>> replacePaths = new ArrayList<>();
    if (replace != null) {
      for (At path : replace.elements()) {
        path.requireArray();
        replacePaths.add(READER.convertValue(path.node, new TypeReference<List<Object>>() {}));
      }
    }
    At unknown = change.optionalField("after_unknown");
    return new PlanDocument.Change(
        actions(change.field("actions")),
        change.field("before").objectOrNull(),
        change.field("after").objectOrNull(),
        unknown == null ? Map.of() : unknown.object(),
        sensitivity(change.field("before_sensitive")),
        sensitivity(change.field("after_sensitive")),
        replacePaths);
  }

  /** {@code false} (null here) or attribute → {@code true} / a nested shape. */
  private static Map<String, Object> sensitivity(At at) {
    if (at.node.isBoolean() && !at.node.booleanValue()) {
      return null;
    }
    if (!at.node.isObject()) {
      throw at.invalid(
          "expected false or an object naming the sensitive attributes, found " + at.kind());
    }
    return at.object();
  }

  private static PlanDocument.Output output(At o) {
    o.requireObject();
    ActionType actions = actions(o.field("actions"));
    if (actions != ActionType.CREATE
        && actions != ActionType.UPDATE
        && actions != ActionType.NO_OP
        && actions != ActionType.DELETE) {
      throw o.field("actions")
          .invalid(
              listText(actions.terraformActions())
                  + " is not an output change (expected [\"create\"], [\"update\"], [\"no-op\"] or"
                  + " [\"delete\"])");
    }
    return new PlanDocument.Output(
        actions,
        o.field("before").value(),
        o.field("after").value(),
        o.field("after_unknown").bool(),
        o.field("before_sensitive").bool(),
        o.field("after_sensitive").bool());
  }

  private static PlanDocument.Check check(At c) {
    c.requireObject();
    At status = c.field("status");
    List<String> problems = new ArrayList<>();
    At instances = c.optionalField("instances");
    if (instances != null) {
      for (At instance : instances.elements()) {
        At list = instance.optionalField("problems");
        if (list != null) {
          list.elements().forEach(p -> problems.add(p.field("message").text()));
        }
      }
    }
    return new PlanDocument.Check(
        c.field("address").field("name").text(), checkStatus(status), problems);
  }

  private static CheckResult.Status checkStatus(At status) {
    String text = status.text();
    for (CheckResult.Status s : CheckResult.Status.values()) {
      if (s.jsonName().equals(text)) {
        return s;
      }
    }
    throw status.invalid(
        quoted(text) + " is not a check status (expected pass, fail, error or unknown)");
  }

  private static PlanDocument.Stagecraft stagecraft(At ours) {
    ours.requireObject();
    Map<String, List<String>> waits = new LinkedHashMap<>();
    At waitFor = ours.optionalField("wait_for");
    if (waitFor != null) {
      waitFor.requireObject();
      waitFor
          .node
          .fieldNames()
          .forEachRemaining(
              address ->
                  waits.put(
                      address, waitFor.field(address).elements().stream().map(At::text).toList()));
    }
    Map<String, PlanDocument.LifecycleFlags> lifecycle = new LinkedHashMap<>();
    At flags = ours.optionalField("lifecycle");
    if (flags != null) {
      flags.requireObject();
      flags
          .node
          .fieldNames()
          .forEachRemaining(
              address -> {
                At f = flags.field(address);
                lifecycle.put(
                    address,
                    new PlanDocument.LifecycleFlags(
                        f.field("create_before_destroy").bool(), f.field("skip_destroy").bool()));
              });
    }
    At serial = ours.field("prior_serial");
    if (!serial.node.canConvertToExactIntegral() || serial.node.longValue() < 0) {
      throw serial.invalid(
          "expected a state serial (a whole number, 0 or more), found " + serial.kind());
    }
    return new PlanDocument.Stagecraft(
        ours.field("workspace").text(),
        serial.node.longValue(),
        optionalText(ours, "prior_lineage"),
        ours.field("destroy").bool(),
        waits,
        lifecycle);
  }

  private static ActionReason reason(At at) {
    String text = at.text();
    for (ActionReason r : ActionReason.values()) {
      if (r.terraformName().equals(text)) {
        return r;
      }
    }
    throw at.invalid(
        quoted(text)
            + " is not a reason Stagecraft gives (one of "
            + Arrays.stream(ActionReason.values())
                .map(ActionReason::terraformName)
                .collect(Collectors.joining(", "))
            + ")");
  }

  private static ActionType actions(At at) {
    at.requireArray();
    List<String> names = at.elements().stream().map(At::text).toList();
    ActionType type = actionTypeOrNull(names);
    if (type == null) {
      throw at.invalid(
          listText(names)
              + " is not an action Stagecraft plans (one of "
              + Arrays.stream(ActionType.values())
                  .map(
                      t ->
                          t.terraformActions().stream()
                              .map(PlanDecoder::quoted)
                              .toList()
                              .toString())
                  .collect(Collectors.joining(", "))
              + ")");
    }
    return type;
  }

  /** The action whose {@link ActionType#terraformActions()} are {@code names}. */
  static ActionType actionType(List<String> names) {
    ActionType type = actionTypeOrNull(names);
    if (type == null) {
      throw new IllegalArgumentException("no action is " + names);
    }
    return type;
  }

  private static ActionType actionTypeOrNull(List<String> names) {
    for (ActionType t : ActionType.values()) {
      if (t.terraformActions().equals(names)) {
        return t;
      }
    }
    return null;
  }

  private static String optionalText(At parent, String field) {
    At at = parent.optionalField(field);
    return at == null ? null : at.text();
  }

  /** {@code ["delete", "create"]}. */
  private static String listText(List<String> names) {
    return names.stream().map(PlanDecoder::quoted).collect(Collectors.joining(", ", "[", "]"));
  }

  private static String quoted(String s) {
    return "\"" + s + "\"";
  }

  /** A node and the JSON path it is at. */
  private record At(JsonNode node, String path) {

    At field(String name) {
      requireObject();
      JsonNode child = node.get(name);
      if (child == null) {
        throw new InvalidPlanException(child(name), "missing");
      }
      return new At(child, child(name));
    }

    /** The field, or null when it is absent or JSON null. */
    At optionalField(String name) {
      requireObject();
      JsonNode child = node.get(name);
      return child == null || child.isNull() ? null : new At(child, child(name));
    }

    List<At> elements() {
      requireArray();
      List<At> out = new ArrayList<>();
      for (int i = 0; i < node.size(); i++) {
        out.add(new At(node.get(i), path + "[" + i + "]"));
      }
      return out;
    }

    String text() {
      if (!node.isTextual()) {
        throw invalid("expected a string, found " + kind());
      }
      return node.textValue();
    }

    boolean bool() {
      if (!node.isBoolean()) {
        throw invalid("expected true or false, found " + kind());
      }
      return node.booleanValue();
    }

    Map<String, Object> object() {
      requireObject();
      return READER.convertValue(node, MAP);
    }

    Map<String, Object> objectOrNull() {
      return node.isNull() ? null : object();
    }

    Object value() {
      return READER.convertValue(node, Object.class);
    }

    void requireObject() {
      if (!node.isObject()) {
        throw invalid("expected an object, found " + kind());
      }
    }

    void requireArray() {
      if (!node.isArray()) {
        throw invalid("expected an array, found " + kind());
      }
    }

    InvalidPlanException invalid(String problem) {
      return new InvalidPlanException(path, problem);
    }

    String kind() {
      return switch (node.getNodeType()) {
        case ARRAY -> "an array";
        case OBJECT -> "an object";
        case STRING -> "a string";
        case NUMBER -> "a number";
        case BOOLEAN -> node.booleanValue() ? "true" : "false";
        case NULL -> "null";
        default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
      };
    }

    private String child(String name) {
      boolean plain = !name.isEmpty() && !Character.isDigit(name.charAt(0));
      for (char c : name.toCharArray()) {
        plain &= c == '_' || c == '-' || (c < 128 && Character.isLetterOrDigit(c));
      }
      String segment = plain ? name : "[\"" + name.replace("\"", "\\\"") + "\"]";
      if (path.equals(ROOT)) {
        return segment;
      }
      return plain ? path + "." + segment : path + segment;
    }
  }
}
