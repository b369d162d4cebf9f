package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.TemplatePart;
import dev.stagecraft.language.syntax.Traversal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Evaluates expressions to {@link Value}s. Stateless and thread-safe; all per-call state lives in
 * the call. Problems are diagnostics with source ranges; the evaluator never throws for any input.
 * A sub-expression with an error evaluates to unknown so that one mistake does not cascade. Every
 * evaluation counts against the context's {@link EvalBudget}; an exceeded budget ends it with a
 * diagnostic at the expression where it was hit.
 */
public final class Evaluator {
  private final Functions functions;

  public Evaluator(Functions functions) {
    this.functions = functions;
  }

  public Evaluator() {
    this(Functions.standard());
  }

  public Functions functions() {
    return functions;
  }

  public EvalResult evaluate(Expression expr, EvalContext ctx) {
    Diagnostics d = new Diagnostics();
    EvalBudget budget = EvalBudget.of(ctx);
    try {
      Value v = new Run(budget.bind(ctx), budget, d).eval(expr, Map.of());
      return new EvalResult(v, d);
    } catch (EvalBudget.Exceeded e) {
      d.error(e.summary(), e.detail(), e.at(expr == null ? null : expr.range()).range());
      return new EvalResult(Value.unknown(), d);
    } catch (RuntimeException | StackOverflowError e) {
      d.error(
          "Internal evaluation error",
          "Evaluating this expression failed unexpectedly (" + e + "). This is a bug.",
          expr == null ? null : expr.range());
      return new EvalResult(Value.unknown(), d);
    }
  }

  /**
   * Why a function refused an argument, when an argument is sensitive: the function's own reason
   * may quote the value, so it is not shown (a value state holds sensitive, or a sensitive
   * variable, never appears in a diagnostic).
   */
  static final String SENSITIVE_REASON =
      "an argument is sensitive, so the reason, which may quote its value, is not shown.";

  private final class Run {
    private final EvalContext ctx;
    private final EvalBudget budget;
    private Diagnostics diags;

    Run(EvalContext ctx, EvalBudget budget, Diagnostics diags) {
      this.ctx = ctx;
      this.budget = budget;
      this.diags = diags;
    }

    private Value error(String summary, String detail, SourceRange range) {
      diags.error(summary, detail, range);
      return Value.unknown();
    }

    Value eval(Expression e, Map<String, Value> scope) {
      budget.step(e.range());
      return switch (e) {
        case Expression.Literal l -> Value.of(l.value());
        case Expression.Template t -> template(t, scope);
        case Expression.ScopeTraversal st -> scopeTraversal(st.traversal(), scope);
        case Expression.RelativeTraversal rt -> {
          Value v = eval(rt.source(), scope);
          for (Traversal.Step s : rt.steps()) {
            v = step(v, s, null);
          }
          yield v;
        }
        case Expression.Index ix -> {
          Value c = eval(ix.collection(), scope);
          Value k = eval(ix.key(), scope);
          yield index(c, k, ix.key().range());
        }
        case Expression.Splat sp -> splat(sp, scope);
        case Expression.FunctionCall fc -> call(fc, scope);
        case Expression.Tuple tu -> {
          List<Value> out = new ArrayList<>();
          for (Expression x : tu.elements()) {
            out.add(eval(x, scope));
          }
          yield budget.charge(Value.list(out), "this tuple", tu.range());
        }
        case Expression.ObjectCons oc -> object(oc, scope);
        case Expression.Unary u -> Operators.unary(u, eval(u.operand(), scope), diags);
        case Expression.Binary b -> {
          Value l = eval(b.left(), scope);
          Value r = eval(b.right(), scope);
          yield Operators.binary(b, l, r, diags);
        }
        case Expression.Conditional c -> conditional(c, scope);
        case Expression.Parens p -> eval(p.inner(), scope);
        case Expression.ForExpr f -> forExpr(f, scope);
      };
    }

    // ---------------------------------------------------------------- references

    private Value scopeTraversal(Traversal t, Map<String, Value> scope) {
      Value root = scope.get(t.root());
      if (root == null) {
        Optional<Value> r = ctx.resolve(t.root());
        if (r.isEmpty()) {
          if (t.isResourceReference()) {
            return error(
                "Reference to undeclared resource",
                "A managed resource \""
                    + t.root()
                    + "\" \""
                    + t.firstAttribute().orElse("")
                    + "\" has not been declared. Declare it with resource \""
                    + t.root()
                    + "\" \""
                    + t.firstAttribute().orElse("")
                    + "\" { ... } or fix the reference.",
                t.range());
          }
          return error(
              "Unknown variable",
              "There is no variable named \""
                  + t.root()
                  + "\" here. References start with var., local., count., each., self., path.,"
                  + " terraform. or a resource type.",
              t.rootRange());
        }
        root = r.get();
      }
      Value v = root;
      for (int i = 0; i < t.steps().size(); i++) {
        v = step(v, t.steps().get(i), i == 0 ? t : null);
      }
      return v;
    }

    private Value step(Value v, Traversal.Step s, Traversal firstOf) {
      return switch (s) {
        case Traversal.Attr a -> attr(v, a.name(), a.range(), firstOf);
        case Traversal.Key k -> index(v, Value.of(k.key()), k.range());
      };
    }

    private Value attr(Value v, String name, SourceRange range, Traversal firstOf) {
      if (v instanceof Value.UnknownValue) {
        return v;
      }
      if (v instanceof Value.ObjectValue o && o.get(name) != null) {
        return o.get(name).markLike(o);
      }
      diags.add(AttributeErrors.notFound(v, name, range, firstOf));
      return Value.unknown();
    }

    private Value index(Value coll, Value key, SourceRange range) {
      if (!coll.isKnown() || !key.isKnown()) {
        return Value.unknown().markLike(coll, key);
      }
      switch (coll) {
        case Value.ListValue l -> {
          Optional<BigDecimal> n = Conversions.toNumber(key);
          if (n.isEmpty()) {
            return error(
                "Invalid index",
                "A list index must be a number, but the given key is " + key.typeName() + ".",
                range);
          }
          BigDecimal idx = n.get();
          if (idx.stripTrailingZeros().scale() > 0) {
            return error(
                "Invalid index",
                "The index must be a whole number, not " + shown(key) + ".",
                range);
          }
          if (idx.signum() < 0 || idx.compareTo(BigDecimal.valueOf(l.elements().size())) >= 0) {
            return error(
                "Invalid index",
                "The given key does not identify an element in this collection value: index "
                    + Value.formatNumber(idx)
                    + " is out of range for a list of "
                    + l.elements().size()
                    + " element(s).",
                range);
          }
          return l.elements().get(idx.intValueExact()).markLike(coll, key);
        }
        case Value.ObjectValue o -> {
          Optional<String> k = Conversions.toStr(key);
          if (k.isEmpty()) {
            return error(
                "Invalid index",
                "A map key must be a string, but the given key is " + key.typeName() + ".",
                range);
          }
          Value r = o.get(k.get());
          if (r == null) {
            return error(
                "Invalid index",
                "The given key does not identify an element in this collection value: there is no"
                    + " key "
                    + (key.isSensitive() ? Value.SENSITIVE_TEXT : "\"" + k.get() + "\"")
                    + ".",
                range);
          }
          return r.markLike(coll, key);
        }
        case Value.NullValue n -> {
          return error(
              "Attempt to index null value",
              "This value is null, so it does not have any indices.",
              range);
        }
        default -> {
          return error(
              "Invalid index",
              "This value (" + coll.typeName() + ") does not have any indices.",
              range);
        }
      }
    }

    private Value splat(Expression.Splat sp, Map<String, Value> scope) {
      Value src = eval(sp.source(), scope);
      if (!src.isKnown()) {
        return src;
      }
      if (src.isNull()) {
        return Value.list(List.of()).markLike(src);
      }
      List<Value> elems = src instanceof Value.ListValue l ? l.elements() : List.of(src.unmark());
      List<Value> out = new ArrayList<>();
      for (Value e : elems) {
        Value v = e;
        for (Traversal.Step s : sp.each()) {
          v = step(v, s, null);
        }
        out.add(v);
      }
      return budget.charge(Value.list(out), "this splat", sp.range()).markLike(src);
    }

    // ---------------------------------------------------------------- templates

    private static final class Acc {
      final StringBuilder sb = new StringBuilder();
      boolean unknown;
      Value marks = Value.NULL;

      /** Carries the marks of a value the template used. */
      void used(Value v) {
        marks = marks.markLike(v);
      }
    }

    private static final String TEMPLATE = "this template";

    private Value template(Expression.Template t, Map<String, Value> scope) {
      if (t.parts().size() == 1 && t.parts().get(0) instanceof TemplatePart.Interpolation i) {
        return eval(i.expr(), scope);
      }
      Acc acc = new Acc();
      try {
        render(t.parts(), scope, acc);
      } catch (EvalBudget.Exceeded e) {
        throw e.at(t.range());
      }
      Value r =
          acc.unknown
              ? Value.unknown()
              : budget.charge(Value.string(acc.sb.toString()), TEMPLATE, t.range());
      return r.markLike(acc.marks);
    }

    private void render(List<TemplatePart> parts, Map<String, Value> scope, Acc acc) {
      for (TemplatePart p : parts) {
        switch (p) {
          case TemplatePart.Literal l -> budget.append(acc.sb, l.text(), TEMPLATE);
          case TemplatePart.Interpolation i -> {
            Value v = eval(i.expr(), scope);
            acc.used(v);
            if (!v.isKnown()) {
              acc.unknown = true;
            } else if (v.isNull()) {
              error(
                  "Invalid template interpolation value",
                  "The expression result is null. Cannot include a null value in a string"
                      + " template; use coalesce() or a conditional to provide a default.",
                  i.expr().range());
              acc.unknown = true;
            } else {
              Optional<String> s = Conversions.toStr(v);
              if (s.isEmpty()) {
                error(
                    "Invalid template interpolation value",
                    "Cannot include the given value in a string template: string required, but"
                        + " got "
                        + v.typeName()
                        + ". Use join() or jsonencode() to turn a collection into a string.",
                    i.expr().range());
                acc.unknown = true;
              } else {
                budget.append(acc.sb, s.get(), TEMPLATE);
              }
            }
          }
          case TemplatePart.If i -> {
            Value c = eval(i.condition(), scope);
            acc.used(c);
            if (!c.isKnown()) {
              acc.unknown = true;
              continue;
            }
            Optional<Boolean> b = Conversions.toBool(c);
            if (b.isEmpty()) {
              error(
                  "Invalid template directive condition",
                  "The condition of %{ if } must be a bool, but it is " + c.typeName() + ".",
                  i.condition().range());
              acc.unknown = true;
              continue;
            }
            render(b.get() ? i.thenParts() : i.elseParts(), scope, acc);
          }
          case TemplatePart.For f -> {
            Value c = eval(f.collection(), scope);
            acc.used(c);
            if (!c.isKnown()) {
              acc.unknown = true;
              continue;
            }
            List<Map.Entry<Value, Value>> entries = entries(c, f.collection().range(), "%{ for }");
            if (entries == null) {
              acc.unknown = true;
              continue;
            }
            for (Map.Entry<Value, Value> en : entries) {
              Map<String, Value> inner = new HashMap<>(scope);
              if (f.keyVar() != null) {
                inner.put(f.keyVar(), en.getKey());
              }
              inner.put(f.valueVar(), en.getValue());
              render(f.body(), inner, acc);
            }
          }
        }
      }
    }

    private List<Map.Entry<Value, Value>> entries(Value c, SourceRange range, String what) {
      List<Map.Entry<Value, Value>> out = new ArrayList<>();
      switch (c) {
        case Value.ListValue l -> {
          for (int i = 0; i < l.elements().size(); i++) {
            out.add(Map.entry(Value.number(i), l.elements().get(i).markLike(c)));
          }
        }
        case Value.ObjectValue o ->
            o.attributes().forEach((k, v) -> out.add(Map.entry(Value.string(k), v.markLike(c))));
        case Value.NullValue n -> {
          error(
              "Iteration over null value",
              "A null value cannot be used as the collection in a " + what + ".",
              range);
          return null;
        }
        default -> {
          error(
              "Iteration over non-iterable value",
              "A value of type "
                  + c.typeName()
                  + " cannot be used as the collection in a "
                  + what
                  + "; a list or map is required.",
              range);
          return null;
        }
      }
      return out;
    }

    // ---------------------------------------------------------------- constructors

    private Value object(Expression.ObjectCons oc, Map<String, Value> scope) {
      Map<String, Value> out = new LinkedHashMap<>();
      boolean unknown = false;
      for (Expression.ObjectItem item : oc.items()) {
        Value k = eval(item.key(), scope);
        Value v = eval(item.value(), scope);
        if (!k.isKnown()) {
          unknown = true;
          continue;
        }
        Optional<String> ks = Conversions.toStr(k);
        if (ks.isEmpty()) {
          error(
              "Invalid object key",
              "An object key must be a string, but this key is " + k.typeName() + ".",
              item.key().range());
          continue;
        }
        out.put(ks.get(), v);
      }
      return unknown
          ? Value.unknown()
          : budget.charge(Value.object(out), "this object", oc.range());
    }

    private Value forExpr(Expression.ForExpr f, Map<String, Value> scope) {
      Value c = eval(f.collection(), scope);
      if (!c.isKnown()) {
        return c;
      }
      List<Map.Entry<Value, Value>> entries =
          entries(c, f.collection().range(), "'for' expression");
      if (entries == null) {
        return Value.unknown();
      }
      List<Value> list = new ArrayList<>();
      Map<String, Value> obj = new LinkedHashMap<>();
      Map<String, List<Value>> groups = new LinkedHashMap<>();
      boolean unknown = false;
      for (Map.Entry<Value, Value> en : entries) {
        Map<String, Value> inner = new HashMap<>(scope);
        if (f.keyVar() != null) {
          inner.put(f.keyVar(), en.getKey());
        }
        inner.put(f.valueVar(), en.getValue());
        ForFilter filter = forFilter(f, inner);
        if (filter == ForFilter.INVALID) {
          return Value.unknown();
        }
        if (filter == ForFilter.UNKNOWN) {
          unknown = true;
        }
        if (filter != ForFilter.KEEP) {
          continue;
        }
        budget.chargeElements(1, "this for expression", f.range());
        if (f.isObject()) {
          Value k = eval(f.keyExpr(), inner);
          Value v = eval(f.valueExpr(), inner);
          if (!k.isKnown()) {
            unknown = true;
            continue;
          }
          Optional<String> ks = Conversions.toStr(k);
          if (ks.isEmpty()) {
            error(
                "Invalid object key",
                "The key expression must produce a string, but it produced " + k.typeName() + ".",
                f.keyExpr().range());
            return Value.unknown();
          }
          if (f.grouping()) {
            groups.computeIfAbsent(ks.get(), x -> new ArrayList<>()).add(v);
          } else if (obj.containsKey(ks.get())) {
            error(
                "Duplicate object key",
                "Two different items produced the key "
                    + (k.isSensitive() ? Value.SENSITIVE_TEXT : "\"" + ks.get() + "\"")
                    + " in this 'for' expression. If duplicates are expected, use the ellipsis"
                    + " (...) after the value expression to enable grouping by key.",
                f.keyExpr().range());
            return Value.unknown();
          } else {
            obj.put(ks.get(), v);
          }
        } else {
          list.add(eval(f.valueExpr(), inner));
        }
      }
      if (unknown) {
        return Value.unknown().markLike(c);
      }
      if (!f.isObject()) {
        return Value.list(list).markLike(c);
      }
      if (f.grouping()) {
        groups.forEach((k, vs) -> obj.put(k, Value.list(vs)));
      }
      return Value.object(obj).markLike(c);
    }

    /** What a 'for' expression's {@code if} clause says about one element. */
    private enum ForFilter {
      KEEP,
      SKIP,
      UNKNOWN,
      INVALID
    }

    private ForFilter forFilter(Expression.ForExpr f, Map<String, Value> inner) {
      if (f.condition() == null) {
        return ForFilter.KEEP;
      }
      Value cond = eval(f.condition(), inner);
      if (!cond.isKnown()) {
        return ForFilter.UNKNOWN;
      }
      Optional<Boolean> b = Conversions.toBool(cond);
      if (b.isEmpty()) {
        error(
            "Invalid 'for' condition",
            "The 'if' clause must produce a bool, but it produced " + cond.typeName() + ".",
            f.condition().range());
        return ForFilter.INVALID;
      }
      return b.get() ? ForFilter.KEEP : ForFilter.SKIP;
    }

    // ---------------------------------------------------------------- conditionals (operators:
    // Operators)

    /** A value for a message: its text, or {@code (sensitive value)}. */
    private static String shown(Value v) {
      return v.isSensitive() ? Value.SENSITIVE_TEXT : v.asString();
    }

    private Value conditional(Expression.Conditional c, Map<String, Value> scope) {
      Value cond = eval(c.condition(), scope);
      if (!cond.isKnown()) {
        return Value.unknown().markLike(cond);
      }
      if (cond.isNull()) {
        return error(
            "Invalid conditional",
            "The condition value is null. Conditions must either be true or false.",
            c.condition().range());
      }
      Optional<Boolean> b = Conversions.toBool(cond);
      if (b.isEmpty()) {
        return error(
            "Invalid conditional",
            "The condition must be a bool, but it is " + cond.typeName() + ".",
            c.condition().range());
      }
      return eval(b.get() ? c.trueResult() : c.falseResult(), scope).markLike(cond);
    }

    // ---------------------------------------------------------------- functions

    private static final String CORE_NAMESPACE = "core::";

    private Value call(Expression.FunctionCall fc, Map<String, Value> scope) {
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
      FunctionDef f = def.get();
      List<Value> args = new ArrayList<>();
      List<SourceRange> ranges = new ArrayList<>();
      for (Expression a : fc.args()) {
        args.add(eval(a, scope));
        ranges.add(a.range());
      }
      if (fc.expandFinal() && !args.isEmpty()) {
        Value last = args.remove(args.size() - 1);
        SourceRange lastRange = ranges.remove(ranges.size() - 1);
        if (!last.isKnown()) {
          return Value.unknown().markLike(last);
        }
        if (!(last instanceof Value.ListValue l)) {
          return error(
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
      return invoke(fc, f, args, ranges);
    }

    private Value unknownFunction(Expression.FunctionCall fc, Map<String, Value> scope) {
      for (Expression a : fc.args()) {
        eval(a, scope);
      }
      return error(
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
        return error(
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
      List<Value> callArgs =
          f.handlesMarks() ? args : args.stream().map(Value::unmarkDeep).toList();
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
        budget.charge(result, f.name() + "()");
        budget.checkDeadline(fc.range());
        return f.handlesMarks() ? result : Value.markedLikeAnyOf(result, args);
      } catch (EvalBudget.Exceeded e) {
        throw e.at(fc.range());
      } catch (FunctionException e) {
        int i = e.argIndex();
        SourceRange r = i >= 0 && i < ranges.size() ? ranges.get(i) : fc.range();
        String which = i >= 0 ? "Invalid value for argument " + (i + 1) + " of " : "Call to ";
        return error(
            "Invalid function argument",
            which
                + f.name()
                + "(): "
                + (sens && !e.quotesNoValue() ? SENSITIVE_REASON : e.getMessage()),
            r == null ? fc.range() : r);
      } catch (RuntimeException e) {
        return error(
            "Error in function call",
            "Call to function \""
                + f.name()
                + "\" failed: "
                + (sens ? SENSITIVE_REASON : e.getMessage() + "."),
            fc.range());
      }
    }

    private Value tryForm(Expression.FunctionCall fc, Map<String, Value> scope) {
      if (fc.args().isEmpty()) {
        return error(
            "Not enough function arguments",
            "Function \"try\" expects at least one argument.",
            fc.range());
      }
      Diagnostics outer = diags;
      Diagnostics firstErrors = null;
      try {
        for (Expression a : fc.args()) {
          diags = new Diagnostics();
          Value v = eval(a, scope);
          if (!diags.hasErrors()) {
            return v;
          }
          if (firstErrors == null) {
            firstErrors = diags;
          }
        }
      } finally {
        diags = outer;
      }
      String why = firstErrors.errors().get(0).summary();
      return error(
          "Invalid function argument",
          "No expression in the given arguments is valid (the first failed with: "
              + why
              + "). Add a fallback value as the last argument.",
          fc.range());
    }

    private Value canForm(Expression.FunctionCall fc, Map<String, Value> scope) {
      if (fc.args().size() != 1) {
        return error(
            fc.args().isEmpty() ? "Not enough function arguments" : "Too many function arguments",
            "Function \"can\" expects exactly one argument.",
            fc.range());
      }
      Diagnostics outer = diags;
      diags = new Diagnostics();
      try {
        Value v = eval(fc.args().get(0), scope);
        if (diags.hasErrors()) {
          return Value.FALSE;
        }
        return v.isWhollyKnown() ? Value.TRUE : Value.unknown();
      } finally {
        diags = outer;
      }
    }
  }
}
