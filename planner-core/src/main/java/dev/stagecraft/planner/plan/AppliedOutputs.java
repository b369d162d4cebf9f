package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.OutputDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Value;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The root module outputs of a run evaluated after its apply succeeded, against the applied values
 * (docs/planning.md "Outputs in state", docs/adr/0064): what the state records, as Terraform does.
 * An output that is null is not recorded (Terraform leaves it out of state too); one whose value is
 * still unknown, or whose evaluation fails, is left out with a warning. A destroy records none.
 *
 * @param outputs by name: the clear value (plain Java data), its type and whether it is sensitive
 * @param diagnostics warnings about outputs that could not be recorded
 */
public record AppliedOutputs(Map<String, Output> outputs, Diagnostics diagnostics) {

  /** One output: {@code sensitive} when declared so or when its value carries a sensitive mark. */
  public record Output(Object value, Object type, boolean sensitive) {
    /** Never the value: it may be secret. */
    @Override
    public String toString() {
      return "Output[type=" + type + ", sensitive=" + sensitive + "]";
    }
  }

  public AppliedOutputs {
    outputs = Collections.unmodifiableMap(new TreeMap<>(outputs));
  }

  /** No outputs (a destroy). */
  public static AppliedOutputs none() {
    return new AppliedOutputs(Map.of(), new Diagnostics());
  }

  static AppliedOutputs evaluate(
      List<OutputDecl> declared, EvalContext ctx, ConfigModel model, Diagnostics diagnostics) {
    Map<String, Output> out = new LinkedHashMap<>();
    for (OutputDecl o : declared) {
      EvalResult result = model.evaluateExpression(o.value(), ctx);
      Value v = result.value();
      if (result.hasErrors() || !v.isWhollyKnown()) {
        diagnostics.warning(
            "Output not recorded",
            "output \""
                + o.name()
                + "\" "
                + (result.hasErrors()
                    ? "could not be evaluated after apply"
                    : "is still unknown after apply")
                + ", so the state does not record it; the next apply records it once it is known.",
            o.range());
        continue;
      }
      if (v.isNull()) {
        continue;
      }
      out.put(
          o.name(),
          new Output(v.unmarkDeep().toJava(), typeJson(v), o.sensitive() || v.containsSensitive()));
    }
    return new AppliedOutputs(out, diagnostics);
  }

  /**
   * The outputs in Terraform's v4 form: name → {@code {"value", "type", "sensitive"}} (values in
   * clear: {@link AttributeSealing#sealOutputs} seals the sensitive ones before they leave).
   */
  public Map<String, Map<String, Object>> toV4() {
    Map<String, Map<String, Object>> v4 = new LinkedHashMap<>();
    outputs.forEach(
        (name, o) -> {
          Map<String, Object> json = new LinkedHashMap<>();
          json.put("value", o.value());
          json.put("type", o.type());
          json.put("sensitive", o.sensitive());
          v4.put(name, json);
        });
    return v4;
  }

  /**
   * Terraform's JSON encoding of the type of a known value: {@code "string"}, {@code "number"},
   * {@code "bool"}, {@code ["tuple",[...]]} for a list and {@code ["object",{...}]} for an object —
   * the types a literal or a decoded JSON value has in Terraform. (Stagecraft's values do not tell
   * a list from a tuple or a map from an object, so a {@code list(string)} variable's value is
   * recorded as a tuple of strings; a reader gets the same value either way.)
   */
  public static Object typeJson(Value value) {
    return switch (value) {
      case Value.StringValue s -> "string";
      case Value.NumberValue n -> "number";
      case Value.BoolValue b -> "bool";
      case Value.ListValue l -> {
        List<Object> elements = new ArrayList<>();
        l.elements().forEach(e -> elements.add(typeJson(e)));
        yield List.of("tuple", elements);
      }
      case Value.ObjectValue o -> {
        Map<String, Object> attributes = new TreeMap<>();
        o.attributes().forEach((k, v) -> attributes.put(k, typeJson(v)));
        yield List.of("object", attributes);
      }
      default -> "dynamic";
    };
  }
}
