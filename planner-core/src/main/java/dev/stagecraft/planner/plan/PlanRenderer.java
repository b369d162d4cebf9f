package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** The human rendering of a plan, modelled on {@code terraform plan}'s output. */
public final class PlanRenderer {
  private static final String UNKNOWN = "(known after apply)";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private PlanRenderer() {}

  /**
   * The plan as {@code terraform plan} shows it, followed by the warnings of its {@code check}
   * blocks (failed, or known only after apply), rendered as diagnostics.
   */
  public static String render(Plan plan) {
    StringBuilder out = new StringBuilder(actions(plan));
    for (CheckResult check : plan.checks()) {
      for (var warning : check.warnings(false)) {
        out.append('\n').append(warning.render());
      }
    }
    return out.toString();
  }

  private static String actions(Plan plan) {
    StringBuilder out = new StringBuilder();
    List<OutputChange> outputs =
        plan.outputChanges().stream().filter(OutputChange::isChange).toList();
    if (!plan.hasChanges()) {
      if (!outputs.isEmpty()) {
        out.append("Changes to Outputs:\n");
        outputs.forEach(o -> out.append(outputLine(o)).append('\n'));
        out.append('\n');
      }
      out.append("No changes. Your infrastructure matches the configuration.\n");
      if (!outputs.isEmpty()) {
        out.append(
            "\nYou can apply this plan to save these new output values to the state, without"
                + " changing any real infrastructure.\n");
      }
      return out.toString();
    }
    out.append("Stagecraft will perform the following actions:\n\n");
    for (PlannedAction a : plan.changes()) {
      renderAction(out, a);
      out.append('\n');
    }
    out.append(summary(plan)).append('\n');
    if (!outputs.isEmpty()) {
      out.append("\nChanges to Outputs:\n");
      outputs.forEach(o -> out.append(outputLine(o)).append('\n'));
    }
    return out.toString();
  }

  private static String outputLine(OutputChange o) {
    String action = o.actions().get(0);
    String after =
        o.sensitive()
            ? Redaction.SENSITIVE
            : o.afterUnknown() ? UNKNOWN : o.after() == null ? "null" : literal(o.after());
    String before = o.sensitive() ? Redaction.SENSITIVE : literal(o.before());
    return switch (action) {
      case "create" -> "  + " + o.name() + " = " + after;
      case "delete" -> "  - " + o.name() + " = " + before + " -> null";
      default -> "  ~ " + o.name() + " = " + before + " -> " + after;
    };
  }

  /** {@code Plan: N to add, N to change, N to destroy.} (plus forgets when there are any). */
  public static String summary(Plan plan) {
    String line =
        "Plan: %d to add, %d to change, %d to destroy"
            .formatted(plan.toAdd(), plan.toChange(), plan.toDestroy());
    if (plan.toForget() > 0) {
      line += ", %d to forget".formatted(plan.toForget());
    }
    return line + ".";
  }

  private static void renderAction(StringBuilder out, PlannedAction a) {
    if (a.action() == ActionType.NO_OP && a.previousAddress() != null) {
      out.append("  # ")
          .append(a.previousAddress())
          .append(" has moved to ")
          .append(a.address())
          .append('\n');
    } else {
      out.append("  # ").append(a.address()).append(' ').append(headline(a)).append('\n');
      if (a.previousAddress() != null) {
        out.append("  # (moved from ").append(a.previousAddress()).append(")\n");
      }
    }
    String symbol = a.action().symbol();
    out.append(symbol.length() == 3 ? symbol : "  " + symbol)
        .append(" resource \"")
        .append(a.type())
        .append("\" \"")
        .append(a.name())
        .append("\" {\n");
    Set<String> keys = new LinkedHashSet<>();
    if (a.before() != null) {
      keys.addAll(a.before().keySet());
    }
    if (a.after() != null) {
      keys.addAll(a.after().keySet());
    }
    keys.addAll(a.afterUnknown());
    List<String> sorted = new ArrayList<>(keys);
    sorted.sort(null);
    int width = sorted.stream().mapToInt(String::length).max().orElse(0);
    for (String key : sorted) {
      String line = attributeLine(a, key, width);
      if (line != null) {
        out.append(line).append('\n');
      }
    }
    out.append("    }\n");
  }

  private static String headline(PlannedAction a) {
    String because = a.reason() == null ? "" : "\n  # " + a.reason().because(a.address());
    return switch (a.action()) {
      case CREATE -> "will be created";
      case UPDATE -> "will be updated in-place";
      case DELETE -> a.reason() == null ? "will be destroyed" : a.reason().humanText(a.address());
      case DELETE_THEN_CREATE ->
          a.reason() == null ? "must be replaced" : a.reason().humanText(a.address());
      case CREATE_THEN_DELETE ->
          (a.reason() == null ? "must be replaced" : a.reason().humanText(a.address()))
              + "\n  # (create_before_destroy: the new object is created before the old one is"
              + " destroyed)";
      case FORGET_THEN_CREATE ->
          (a.reason() == null ? "must be replaced" : a.reason().humanText(a.address()))
              + "\n  # (lifecycle destroy = false: the old object is forgotten, not destroyed)";
      case FORGET ->
          "will be removed from the state, but will not be destroyed"
              + (because.endsWith("# ") ? "" : because);
      case NO_OP -> "is unchanged";
    };
  }

  private static String attributeLine(PlannedAction a, String key, int width) {
    String padded = key + " ".repeat(width - key.length());
    boolean hasBefore = a.before() != null && a.before().get(key) != null;
    boolean unknownAfter = a.afterUnknown().contains(key);
    boolean hasAfter = unknownAfter || (a.after() != null && a.after().get(key) != null);
    String forces = a.replacePaths().contains(key) ? " # forces replacement" : "";
    boolean sensitive = a.sensitivePaths().contains(key);
    Object before = hasBefore ? a.before().get(key) : null;
    String after =
        unknownAfter
            ? UNKNOWN
            : hasAfter ? (sensitive ? Redaction.SENSITIVE : literal(a.after().get(key))) : null;
    String beforeText = sensitive ? Redaction.SENSITIVE : literal(before);
    return switch (a.action()) {
      case CREATE -> hasAfter ? "      + " + padded + " = " + after : null;
      case DELETE, FORGET -> hasBefore ? "      - " + padded + " = " + beforeText : null;
      default -> {
        if (!hasBefore && hasAfter) {
          yield "      + " + padded + " = " + after + forces;
        }
        if (hasBefore && !hasAfter) {
          yield "      - " + padded + " = " + beforeText + " -> null" + forces;
        }
        if (!hasBefore) {
          yield null;
        }
        if (!unknownAfter && Objects.equals(before, a.after().get(key))) {
          yield "        " + padded + " = " + beforeText;
        }
        yield "      ~ " + padded + " = " + beforeText + " -> " + after + forces;
      }
    };
  }

  static String literal(Object value) {
    if (value instanceof Map<?, ?> || value instanceof List<?> || value instanceof String) {
      try {
        return MAPPER.writeValueAsString(value);
      } catch (JsonProcessingException e) {
        return String.valueOf(value);
      }
    }
    return String.valueOf(value);
  }
}
