package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/** Evaluated arguments of a block (unmarked; secrets recorded), with typed accessors. */
final class StepArguments {
  /** Evaluates one argument's expression (the configuration model's evaluator). */
  @FunctionalInterface
  interface Evaluation {
    EvalResult evaluate(Expression expression, EvalContext ctx);
  }

  final Map<String, AttributeDecl> decls;
  final Map<String, Value> values = new LinkedHashMap<>();
  final Set<String> sensitiveNames = new HashSet<>();
  boolean sensitive;

  private final Diagnostics diagnostics;

  /**
   * Evaluates {@code decls} in {@code ctx}; errors go to {@code diagnostics}, every sensitive value
   * to {@code secrets}. With {@code connection}, the secret connection arguments ({@link
   * SecretCollector#markConnectionSecrets}) are sensitive whatever their source.
   */
  StepArguments(
      Map<String, AttributeDecl> decls,
      boolean connection,
      Evaluation evaluation,
      EvalContext ctx,
      String where,
      Diagnostics diagnostics,
      SecretCollector secrets) {
    this.decls = decls;
    this.diagnostics = diagnostics;
    for (AttributeDecl a : decls.values()) {
      EvalResult result = evaluation.evaluate(a.expr(), ctx);
      diagnostics.addAll(result.diagnostics());
      if (result.hasErrors()) {
        continue;
      }
      Value value = result.value();
      if (!value.isWhollyKnown()) {
        diagnostics.error(
            "Value not known at apply",
            "The argument \""
                + a.name()
                + "\" depends on a value that is still unknown when "
                + where
                + " runs.",
            a.range());
        continue;
      }
      if (value.isNull()) {
        continue;
      }
      if (connection) {
        value = SecretCollector.markConnectionSecrets(a.name(), value);
      }
      if (value.containsSensitive()) {
        sensitive = true;
        sensitiveNames.add(a.name());
        secrets.collect(value);
      }
      values.put(a.name(), value.unmarkDeep());
    }
  }

  boolean has(String name) {
    return decls.containsKey(name);
  }

  AttributeDecl decl(String name) {
    return decls.get(name);
  }

  /** The value for a message: never a sensitive one. */
  private String render(String name) {
    return sensitiveNames.contains(name) ? Value.SENSITIVE_TEXT : values.get(name).render();
  }

  private void invalid(String name, String expected) {
    diagnostics.error(
        "Invalid argument value",
        "The argument \""
            + name
            + "\" must be "
            + expected
            + "; found "
            + values.get(name).typeName()
            + ".",
        decls.get(name).range());
  }

  /** A primitive as text; null when absent or null. */
  String string(String name) {
    Value v = values.get(name);
    if (v == null) {
      return null;
    }
    if (v instanceof Value.ListValue || v instanceof Value.ObjectValue) {
      invalid(name, "a string");
      return null;
    }
    return v.asString();
  }

  List<String> strings(String name) {
    Value v = values.get(name);
    if (v == null) {
      return List.of();
    }
    if (v instanceof Value.ListValue l) {
      List<String> out = new ArrayList<>();
      for (Value e : l.elements()) {
        if (e.isNull() || e instanceof Value.ListValue || e instanceof Value.ObjectValue) {
          invalid(name, "a list of strings");
          return List.of();
        }
        out.add(e.asString());
      }
      return out;
    }
    invalid(name, "a list of strings");
    return List.of();
  }

  Map<String, String> stringMap(String name) {
    Map<String, String> out = new LinkedHashMap<>();
    if (values.get(name) instanceof Value.ObjectValue o) {
      o.attributes().forEach((k, e) -> out.put(k, e.isNull() ? "" : e.asString()));
    } else if (values.containsKey(name)) {
      invalid(name, "a map of strings");
    }
    return out;
  }

  /** A whole number (or a numeric string) in [min, max]; {@code dflt} when absent or null. */
  int wholeNumber(String name, int dflt, int min, int max) {
    Value v = values.get(name);
    if (v == null) {
      return dflt;
    }
    BigDecimal n = null;
    if (v instanceof Value.NumberValue num) {
      n = num.value();
    } else if (v instanceof Value.StringValue s) {
      try {
        n = new BigDecimal(s.value().strip());
      } catch (NumberFormatException e) {
        n = null;
      }
    }
    if (n == null
        || n.stripTrailingZeros().scale() > 0
        || n.compareTo(BigDecimal.valueOf(min)) < 0
        || n.compareTo(BigDecimal.valueOf(max)) > 0) {
      diagnostics.error(
          "Invalid argument value",
          "The argument \""
              + name
              + "\" must be a whole number from "
              + min
              + " to "
              + max
              + "; found "
              + render(name)
              + ".",
          decls.get(name).range());
      return dflt;
    }
    return n.intValueExact();
  }

  /** A duration string ({@code "30s"}, {@code "5m"}, {@code "2m30s"}) in whole seconds. */
  int seconds(String name, int dflt) {
    Value v = values.get(name);
    if (v == null) {
      return dflt;
    }
    OptionalLong seconds =
        v instanceof Value.StringValue s ? Durations.seconds(s.value()) : OptionalLong.empty();
    if (seconds.isEmpty()) {
      diagnostics.error(
          "Invalid duration",
          "The argument \""
              + name
              + "\" must be a duration such as \"30s\", \"5m\" or \"1h30m\"; found "
              + render(name)
              + ".",
          decls.get(name).range());
      return dflt;
    }
    return (int) seconds.getAsLong();
  }
}
