package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.describe;
import static dev.stagecraft.language.eval.functions.Args.list;
import static dev.stagecraft.language.eval.functions.Args.map;

import dev.stagecraft.language.eval.Conversions;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Value;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/**
 * Terraform's type conversion functions ({@code try} and {@code can} are special forms of the
 * evaluator).
 */
final class ConversionFunctions {
  private ConversionFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("tostring", 1, 1, ConversionFunctions::tostring))
        .with(FunctionDef.of("tonumber", 1, 1, ConversionFunctions::tonumber))
        .with(FunctionDef.of("tobool", 1, 1, ConversionFunctions::tobool))
        .with(
            FunctionDef.of(
                "tolist", 1, 1, (a, c) -> a.get(0).isNull() ? Value.NULL : Value.list(list(a, 0))))
        .with(
            FunctionDef.of(
                "toset",
                1,
                1,
                (a, c) ->
                    a.get(0).isNull()
                        ? Value.NULL
                        : Value.list(CollectionFunctions.toSet(list(a, 0), EvalBudget.of(c)))))
        .with(
            FunctionDef.of(
                "tomap", 1, 1, (a, c) -> a.get(0).isNull() ? Value.NULL : Value.object(map(a, 0))))
        .with(
            FunctionDef.of("sensitive", 1, 1, (a, c) -> a.get(0).mark(true))
                .acceptingUnknown()
                .handlingMarks())
        .with(
            FunctionDef.of("nonsensitive", 1, 1, ConversionFunctions::nonsensitive)
                .acceptingUnknown()
                .handlingMarks())
        .with(
            FunctionDef.of("issensitive", 1, 1, (a, c) -> Value.bool(a.get(0).isSensitive()))
                .acceptingUnknown()
                .handlingMarks());
  }

  /**
   * Removes the sensitive marks of a value, as Terraform's {@code nonsensitive()} does — except the
   * state's ({@link Value#isFromState()}): a value the workspace's state holds sensitive is never
   * shown in clear, whoever writes the configuration.
   */
  private static Value nonsensitive(List<Value> a, EvalContext c) {
    if (a.get(0).containsFromState()) {
      throw FunctionException.quotingNoValue(
          0,
          "the value is (or is computed from) a value the workspace's state holds sensitive (a"
              + " sealed value, or one listed in sensitive_attributes), and Stagecraft never shows"
              + " such a value in clear, so its mark cannot be removed. Keep it sensitive: mark"
              + " an output of it sensitive = true, or leave it out of what must be shown.");
    }
    return a.get(0).unmarkDeep();
  }

  private static Value tostring(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    if (v.isNull()) {
      return Value.NULL;
    }
    return Value.string(
        Conversions.toStr(v)
            .orElseThrow(
                () -> new FunctionException(0, "cannot convert " + v.typeName() + " to string.")));
  }

  private static Value tonumber(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    if (v.isNull()) {
      return Value.NULL;
    }
    Optional<BigDecimal> n = Conversions.toNumber(v);
    return Value.number(
        n.orElseThrow(
            () ->
                new FunctionException(
                    0,
                    "cannot convert "
                        + describe(v)
                        + " to number; given string must be a decimal representation of a number.")));
  }

  private static Value tobool(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    if (v.isNull()) {
      return Value.NULL;
    }
    return Value.bool(
        Conversions.toBool(v)
            .orElseThrow(
                () ->
                    new FunctionException(
                        0,
                        "cannot convert "
                            + describe(v)
                            + " to bool; only \"true\" or \"false\" are allowed.")));
  }
}
