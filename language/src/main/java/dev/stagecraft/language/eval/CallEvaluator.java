package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Function calls for one {@link Evaluator.Run}: name lookup (also as {@code core::NAME}), argument
 * expansion ({@code f(xs...)}), arity, unknown and sensitive arguments, impure functions, the
 * budget, a function's failures as diagnostics; and the special forms {@code try} and {@code can},
 * which evaluate their arguments with diagnostics of their own.
 */
final class CallEvaluator {
  private static final String CORE_NAMESPACE = "core::";

  private final Evaluator.Run run;
  private final Functions functions;

  CallEvaluator(Evaluator.Run run, Functions functions) {
    this.run = run;
    this.functions = functions;
  }

  Value call(Expression.FunctionCall fc, Map<String, Value> scope) {
    // as in Terraform, the built-in functions are also reachable as core::NAME
    String bare =
        fc.name().startsWith(CORE_NAMESPACE)
                && !fc.name().substring(CORE_NAMESPACE.length()).contains("::")
            ? fc.name().substring(CORE_NAMESPACE.length())
            : fc.name();
    if (bare.equals("try")) {
      return tryForm(fc, scope);
    }
    if (bare.equals("can")) {
      return canForm(fc, scope);
    }
    Optional<FunctionDef> def = functions.get(fc.name());
    if (def.isEmpty() && !bare.equals(fc.name())) {
      def = functions.get(bare);
    }
    if (def.isEmpty()) {
      return unknownFunction(fc, scope);
    }
    List<Value> args = new ArrayList<>();
    List<SourceRange> ranges = new ArrayList<>();
    for (Expression a : fc.args()) {
      args.add(run.eval(a, scope));
      ranges.add(a.range());
    }
    if (fc.expandFinal() && !args.isEmpty()) {
      Value last = args.remove(args.size() - 1);
      SourceRange lastRange = ranges.remove(ranges.size() - 1);
      if (!last.isKnown()) {
        return Value.unknown().markLike(last);
      }
      if (!(last instanceof Value.ListValue l)) {
        return run.error(
            "Invalid expanding argument value",
            "The expanding argument (indicated by ...) must be a list, but it is "
                + last.typeName()
                + ".",
            lastRange);
      }
      for (Value v : l.elements()) {
        args.add(v.markLike(last));
        ranges.add(lastRange);
      }
    }
    return invoke(fc, def.get(), args, ranges);
  }

  private Value unknownFunction(Expression.FunctionCall fc, Map<String, Value> scope) {
    for (Expression a : fc.args()) {
      run.eval(a, scope);
    }
    return run.error(
        "Call to unknown function",
        fc.name().contains("::")
            ? "There is no function named \""
                + fc.name()
                + "\". Provider-defined functions (provider::NAME::FUNCTION) are not supported;"
                + " the built-in functions may be called with or without the core:: prefix."
            : "There is no function named \"" + fc.name() + "\".",
        fc.nameRange());
  }

  /**
   * Calls {@code f} with evaluated {@code args} (their source {@code ranges} for errors): arity,
   * unknown and sensitive arguments, impure functions, the budget, and the function's failures as
   * diagnostics.
   */
  private Value invoke(
      Expression.FunctionCall fc, FunctionDef f, List<Value> args, List<SourceRange> ranges) {
    if (args.size() < f.minArgs() || (f.maxArgs() >= 0 && args.size() > f.maxArgs())) {
      return run.error(
          args.size() < f.minArgs()
              ? "Not enough function arguments"
              : "Too many function arguments",
          "Function \""
              + f.name()
              + "\" expects "
              + f.arity()
              + ", but "
              + args.size()
              + " "
              + (args.size() == 1 ? "was" : "were")
              + " given.",
          fc.range());
    }
    boolean sens = args.stream().anyMatch(Value::containsSensitive);
    if (!f.acceptsUnknown() && !args.stream().allMatch(Value::isWhollyKnown)) {
      return Value.markedLikeAnyOf(Value.unknown(), args);
    }
    List<Value> callArgs = f.handlesMarks() ? args : args.stream().map(Value::unmarkDeep).toList();
    EvalContext ctx = run.ctx;
    if (f.impure() && ctx.impureFunctionsUnknown()) {
      // planning: as in Terraform, timestamp() and uuid() are known only after apply
      return Value.unknown();
    }
    try {
      Value result =
          f.impure()
              ? ctx.impureResult(f.name(), fc.range(), () -> f.impl().call(callArgs, ctx))
              : f.impl().call(callArgs, ctx);
      if (result == null) {
        result = Value.NULL;
      }
      run.budget.charge(result, f.name() + "()");
      run.budget.checkDeadline(fc.range());
      return f.handlesMarks() ? result : Value.markedLikeAnyOf(result, args);
    } catch (EvalBudget.Exceeded e) {
      throw e.at(fc.range());
    } catch (FunctionException e) {
      int i = e.argIndex();
      SourceRange r = i >= 0 && i < ranges.size() ? ranges.get(i) : fc.range();
      String which = i >= 0 ? "Invalid value for argument " + (i + 1) + " of " : "Call to ";
      return run.error(
          "Invalid function argument",
          which
              + f.name()
              + "(): "
              + (sens && !e.quotesNoValue() ? Evaluator.SENSITIVE_REASON : e.getMessage()),
          r == null ? fc.range() : r);
    } catch (RuntimeException e) {
      return run.error(
          "Error in function call",
          "Call to function \""
              + f.name()
              + "\" failed: "
              + (sens ? Evaluator.SENSITIVE_REASON : e.getMessage() + "."),
          fc.range());
    }
  }

  /** {@code try(a, b, ...)}: the first argument that evaluates without an error. */
  private Value tryForm(Expression.FunctionCall fc, Map<String, Value> scope) {
    if (fc.args().isEmpty()) {
      return run.error(
          "Not enough function arguments",
          "Function \"try\" expects at least one argument.",
          fc.range());
    }
    Diagnostics outer = run.diags();
    Diagnostics firstErrors = null;
    try {
      for (Expression a : fc.args()) {
        Diagnostics own = new Diagnostics();
        run.reportTo(own);
        Value v = run.eval(a, scope);
        if (!own.hasErrors()) {
          return v;
        }
        if (firstErrors == null) {
          firstErrors = own;
        }
      }
    } finally {
      run.reportTo(outer);
    }
    String why = firstErrors.errors().get(0).summary();
    return run.error(
        "Invalid function argument",
        "No expression in the given arguments is valid (the first failed with: "
            + why
            + "). Add a fallback value as the last argument.",
        fc.range());
  }

  /** {@code can(x)}: whether {@code x} evaluates without an error (unknown if not yet known). */
  private Value canForm(Expression.FunctionCall fc, Map<String, Value> scope) {
    if (fc.args().size() != 1) {
      return run.error(
          fc.args().isEmpty() ? "Not enough function arguments" : "Too many function arguments",
          "Function \"can\" expects exactly one argument.",
          fc.range());
    }
    Diagnostics own = new Diagnostics();
    Diagnostics outer = run.reportTo(own);
    try {
      Value v = run.eval(fc.args().get(0), scope);
      if (own.hasErrors()) {
        return Value.FALSE;
      }
      return v.isWhollyKnown() ? Value.TRUE : Value.unknown();
    } finally {
      run.reportTo(outer);
    }
  }
}
