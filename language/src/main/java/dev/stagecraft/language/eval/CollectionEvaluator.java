package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Tuple and object constructors ({@code [1, 2]}, {@code { a = 1 }}) and 'for' expressions ({@code
 * [for x in xs : f(x)]}, {@code {for k, v in m : k => v...}}), and the iteration they share with
 * {@code %{ for }}, for one {@link Evaluator.Run}.
 */
final class CollectionEvaluator {
  private final Evaluator.Run run;

  CollectionEvaluator(Evaluator.Run run) {
    this.run = run;
  }

  /**
   * The (key, value) pairs of a list (index, element) or map (key, value), marked like {@code c};
   * null (with an error at {@code range}) when {@code c} cannot be iterated; {@code what} names the
   * construct in the message.
   */
  List<Map.Entry<Value, Value>> entries(Value c, SourceRange range, String what) {
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
        run.error(
            "Iteration over null value",
            "A null value cannot be used as the collection in a " + what + ".",
            range);
        return null;
      }
      default -> {
        run.error(
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

  /**
   * {@code scope} with one iteration's names bound: {@code keyVar} (when given) to the entry's key,
   * {@code valueVar} to its value.
   */
  static Map<String, Value> bind(
      Map<String, Value> scope, String keyVar, String valueVar, Map.Entry<Value, Value> entry) {
    Map<String, Value> inner = new HashMap<>(scope);
    if (keyVar != null) {
      inner.put(keyVar, entry.getKey());
    }
    inner.put(valueVar, entry.getValue());
    return inner;
  }

  Value tuple(Expression.Tuple tu, Map<String, Value> scope) {
    List<Value> out = new ArrayList<>();
    for (Expression x : tu.elements()) {
      out.add(run.eval(x, scope));
    }
    return run.budget.charge(Value.list(out), "this tuple", tu.range());
  }

  Value object(Expression.ObjectCons oc, Map<String, Value> scope) {
    Map<String, Value> out = new LinkedHashMap<>();
    boolean unknown = false;
    for (Expression.ObjectItem item : oc.items()) {
      Value k = run.eval(item.key(), scope);
      Value v = run.eval(item.value(), scope);
      if (!k.isKnown()) {
        unknown = true;
        continue;
      }
      Optional<String> ks = Conversions.toStr(k);
      if (ks.isEmpty()) {
        run.error(
            "Invalid object key",
            "An object key must be a string, but this key is " + k.typeName() + ".",
            item.key().range());
        continue;
      }
      out.put(ks.get(), v);
    }
    return unknown
        ? Value.unknown()
        : run.budget.charge(Value.object(out), "this object", oc.range());
  }

  /** What one 'for' expression gathers: its list, or its object (grouped with {@code ...}). */
  private static final class ForResult {
    final List<Value> list = new ArrayList<>();
    final Map<String, Value> obj = new LinkedHashMap<>();
    final Map<String, List<Value>> groups = new LinkedHashMap<>();
    boolean unknown;
  }

  Value forExpr(Expression.ForExpr f, Map<String, Value> scope) {
    Value c = run.eval(f.collection(), scope);
    if (!c.isKnown()) {
      return c;
    }
    List<Map.Entry<Value, Value>> entries = entries(c, f.collection().range(), "'for' expression");
    if (entries == null) {
      return Value.unknown();
    }
    ForResult result = new ForResult();
    for (Map.Entry<Value, Value> en : entries) {
      Map<String, Value> inner = bind(scope, f.keyVar(), f.valueVar(), en);
      ForFilter filter = forFilter(f, inner);
      if (filter == ForFilter.INVALID) {
        return Value.unknown();
      }
      if (filter == ForFilter.UNKNOWN) {
        result.unknown = true;
      }
      if (filter != ForFilter.KEEP) {
        continue;
      }
      run.budget.chargeElements(1, "this for expression", f.range());
      if (!f.isObject()) {
        result.list.add(run.eval(f.valueExpr(), inner));
      } else if (!addItem(f, inner, result)) {
        return Value.unknown();
      }
    }
    if (result.unknown) {
      return Value.unknown().markLike(c);
    }
    if (!f.isObject()) {
      return Value.list(result.list).markLike(c);
    }
    if (f.grouping()) {
      result.groups.forEach((k, vs) -> result.obj.put(k, Value.list(vs)));
    }
    return Value.object(result.obj).markLike(c);
  }

  /** Adds one item of an object 'for' expression; false (with an error) when its key is invalid. */
  private boolean addItem(Expression.ForExpr f, Map<String, Value> inner, ForResult result) {
    Value k = run.eval(f.keyExpr(), inner);
    Value v = run.eval(f.valueExpr(), inner);
    if (!k.isKnown()) {
      result.unknown = true;
      return true;
    }
    Optional<String> ks = Conversions.toStr(k);
    if (ks.isEmpty()) {
      run.error(
          "Invalid object key",
          "The key expression must produce a string, but it produced " + k.typeName() + ".",
          f.keyExpr().range());
      return false;
    }
    if (f.grouping()) {
      result.groups.computeIfAbsent(ks.get(), x -> new ArrayList<>()).add(v);
    } else if (result.obj.containsKey(ks.get())) {
      run.error(
          "Duplicate object key",
          "Two different items produced the key "
              + (k.isSensitive() ? Value.SENSITIVE_TEXT : "\"" + ks.get() + "\"")
              + " in this 'for' expression. If duplicates are expected, use the ellipsis"
              + " (...) after the value expression to enable grouping by key.",
          f.keyExpr().range());
      return false;
    } else {
      result.obj.put(ks.get(), v);
    }
    return true;
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
    Value cond = run.eval(f.condition(), inner);
    if (!cond.isKnown()) {
      return ForFilter.UNKNOWN;
    }
    Optional<Boolean> b = Conversions.toBool(cond);
    if (b.isEmpty()) {
      run.error(
          "Invalid 'for' condition",
          "The 'if' clause must produce a bool, but it produced " + cond.typeName() + ".",
          f.condition().range());
      return ForFilter.INVALID;
    }
    return b.get() ? ForFilter.KEEP : ForFilter.SKIP;
  }
}
