package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.integer;
import static dev.stagecraft.language.eval.functions.Args.list;
import static dev.stagecraft.language.eval.functions.Args.map;
import static dev.stagecraft.language.eval.functions.Args.num;
import static dev.stagecraft.language.eval.functions.Args.str;

import dev.stagecraft.language.eval.Conversions;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Value;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Terraform's collection functions. Sets are lists kept deduplicated and ordered as Terraform
 * orders them ({@link #toSet}).
 */
final class CollectionFunctions {
  private CollectionFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("length", 1, 1, CollectionFunctions::length).acceptingUnknown())
        .with(FunctionDef.of("concat", 0, -1, CollectionFunctions::concat))
        .with(FunctionDef.of("contains", 2, 2, CollectionFunctions::contains))
        .with(
            FunctionDef.of(
                "keys",
                1,
                1,
                (a, c) ->
                    Value.list(
                        map(a, 0).keySet().stream().map(k -> (Value) Value.string(k)).toList())))
        .with(
            FunctionDef.of(
                "values", 1, 1, (a, c) -> Value.list(new ArrayList<>(map(a, 0).values()))))
        .with(FunctionDef.of("lookup", 2, 3, CollectionFunctions::lookup))
        .with(FunctionDef.of("merge", 0, -1, CollectionFunctions::merge))
        .with(FunctionDef.of("element", 2, 2, CollectionFunctions::element))
        .with(FunctionDef.of("range", 1, 3, CollectionFunctions::range))
        .with(FunctionDef.of("flatten", 1, 1, (a, c) -> Value.list(flatten(list(a, 0)))))
        .with(
            FunctionDef.of(
                "reverse", 1, 1, (a, c) -> Value.list(new ArrayList<>(list(a, 0)).reversed())))
        .with(FunctionDef.of("distinct", 1, 1, CollectionFunctions::distinct))
        .with(FunctionDef.of("compact", 1, 1, CollectionFunctions::compact))
        .with(FunctionDef.of("zipmap", 2, 2, CollectionFunctions::zipmap))
        .with(FunctionDef.of("coalesce", 1, -1, CollectionFunctions::coalesce))
        .with(FunctionDef.of("sum", 1, 1, CollectionFunctions::sum))
        .with(FunctionDef.of("index", 2, 2, CollectionFunctions::index))
        .with(FunctionDef.of("slice", 3, 3, CollectionFunctions::slice))
        .with(FunctionDef.of("sort", 1, 1, CollectionFunctions::sort))
        .with(FunctionDef.of("setunion", 1, -1, CollectionFunctions::setunion))
        .with(FunctionDef.of("setintersection", 1, -1, CollectionFunctions::setintersection))
        .with(FunctionDef.of("setsubtract", 2, 2, CollectionFunctions::setsubtract))
        .with(FunctionDef.of("setproduct", 1, -1, CollectionFunctions::setproduct))
        .with(FunctionDef.of("transpose", 1, 1, CollectionFunctions::transpose))
        .with(FunctionDef.of("one", 1, 1, CollectionFunctions::one))
        .with(FunctionDef.of("alltrue", 1, 1, (a, c) -> allAny(a, true)))
        .with(FunctionDef.of("anytrue", 1, 1, (a, c) -> allAny(a, false)))
        .with(FunctionDef.of("coalescelist", 1, -1, CollectionFunctions::coalescelist))
        .with(FunctionDef.of("chunklist", 2, 2, CollectionFunctions::chunklist))
        .with(FunctionDef.of("matchkeys", 3, 3, CollectionFunctions::matchkeys));
  }

  private static Value length(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    return switch (v) {
      case Value.UnknownValue u -> v;
      case Value.StringValue s -> Value.number(s.value().codePointCount(0, s.value().length()));
      case Value.ListValue l -> Value.number(l.elements().size());
      case Value.ObjectValue o -> Value.number(o.attributes().size());
      default ->
          throw new FunctionException(
              0, "length() requires a string, list or map, but got " + v.typeName() + ".");
    };
  }

  private static Value concat(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.addAll(list(a, i));
    }
    return Value.list(out);
  }

  private static Value contains(List<Value> a, EvalContext c) {
    Value x = a.get(1);
    return Value.bool(list(a, 0).stream().anyMatch(v -> Conversions.valuesEqual(v, x)));
  }

  private static Value lookup(List<Value> a, EvalContext c) {
    Map<String, Value> m = map(a, 0);
    String k = str(a, 1);
    Value v = m.get(k);
    if (v != null) {
      return v;
    }
    if (a.size() == 3) {
      return a.get(2);
    }
    throw new FunctionException(1, "the map has no key \"" + k + "\" and no default was given.");
  }

  private static Value merge(List<Value> a, EvalContext c) {
    Map<String, Value> out = new LinkedHashMap<>();
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).isNull()) {
        out.putAll(map(a, i));
      }
    }
    return Value.object(out);
  }

  private static Value element(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    int i = integer(a, 1);
    if (l.isEmpty()) {
      throw new FunctionException(0, "cannot use element() with an empty list.");
    }
    if (i < 0) {
      throw new FunctionException(1, "the index must not be negative.");
    }
    return l.get(i % l.size());
  }

  private static Value range(List<Value> a, EvalContext c) {
    BigDecimal start = BigDecimal.ZERO;
    BigDecimal limit;
    BigDecimal step = BigDecimal.ONE;
    if (a.size() == 1) {
      limit = num(a, 0);
    } else {
      start = num(a, 0);
      limit = num(a, 1);
      if (a.size() == 3) {
        step = num(a, 2);
      } else if (limit.compareTo(start) < 0) {
        step = BigDecimal.ONE.negate();
      }
    }
    if (step.signum() == 0) {
      throw new FunctionException(2, "the step must not be zero.");
    }
    List<Value> out = new ArrayList<>();
    for (BigDecimal x = start;
        step.signum() > 0 ? x.compareTo(limit) < 0 : x.compareTo(limit) > 0;
        x = x.add(step)) {
      if (out.size() >= 1024) {
        throw new FunctionException(
            -1, "more than 1024 values were generated; use a smaller range.");
      }
      out.add(Value.number(x));
    }
    return Value.list(out);
  }

  private static List<Value> flatten(List<Value> l) {
    List<Value> out = new ArrayList<>();
    for (Value v : l) {
      if (v instanceof Value.ListValue inner) {
        out.addAll(flatten(inner.elements()));
      } else {
        out.add(v);
      }
    }
    return out;
  }

  private static Value distinct(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>();
    EvalBudget budget = EvalBudget.of(c);
    for (Value v : list(a, 0)) {
      budget.checkDeadline(null); // quadratic in the number of elements
      if (out.stream().noneMatch(x -> Conversions.valuesEqual(x, v))) {
        out.add(v);
      }
    }
    return Value.list(out);
  }

  private static Value compact(List<Value> a, EvalContext c) {
    return Value.list(
        list(a, 0).stream()
            .filter(v -> !v.isNull() && !(v instanceof Value.StringValue s && s.value().isEmpty()))
            .toList());
  }

  private static Value zipmap(List<Value> a, EvalContext c) {
    List<Value> ks = list(a, 0);
    List<Value> vs = list(a, 1);
    if (ks.size() != vs.size()) {
      throw new FunctionException(
          1, "the number of keys (" + ks.size() + ") and values (" + vs.size() + ") must match.");
    }
    Map<String, Value> out = new LinkedHashMap<>();
    for (int i = 0; i < ks.size(); i++) {
      Value k = ks.get(i);
      out.put(
          Conversions.toStr(k).orElseThrow(() -> new FunctionException(0, "keys must be strings.")),
          vs.get(i));
    }
    return Value.object(out);
  }

  private static Value coalesce(List<Value> a, EvalContext c) {
    for (Value v : a) {
      if (!v.isNull() && !(v instanceof Value.StringValue s && s.value().isEmpty())) {
        return v;
      }
    }
    throw new FunctionException(-1, "no non-null, non-empty-string arguments.");
  }

  private static Value sum(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    if (l.isEmpty()) {
      throw new FunctionException(0, "cannot sum an empty list.");
    }
    BigDecimal s = BigDecimal.ZERO;
    for (int i = 0; i < l.size(); i++) {
      s = s.add(num(l, i));
    }
    return Value.number(s);
  }

  private static Value index(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    for (int i = 0; i < l.size(); i++) {
      if (Conversions.valuesEqual(l.get(i), a.get(1))) {
        return Value.number(i);
      }
    }
    throw new FunctionException(1, "item " + a.get(1).render() + " not found in the list.");
  }

  private static Value slice(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    int from = integer(a, 1);
    int to = integer(a, 2);
    if (from < 0) {
      throw new FunctionException(1, "the start index must not be negative.");
    }
    if (to > l.size()) {
      throw new FunctionException(
          2, "the end index must not be greater than the length of the list (" + l.size() + ").");
    }
    if (from > to) {
      throw new FunctionException(1, "the start index must not be greater than the end index.");
    }
    return Value.list(l.subList(from, to));
  }

  private static Value sort(List<Value> a, EvalContext c) {
    List<String> out = new ArrayList<>();
    List<Value> l = list(a, 0);
    for (int i = 0; i < l.size(); i++) {
      if (l.get(i).isNull()) {
        throw new FunctionException(0, "the list must not contain null elements.");
      }
      out.add(str(l, i));
    }
    out.sort(null);
    return Value.list(out.stream().map(x -> (Value) Value.string(x)).toList());
  }

  /**
   * A set as Terraform orders it: duplicates removed; strings in lexical order, numbers ascending;
   * other element types keep their first-seen order.
   */
  static List<Value> toSet(List<Value> in, EvalBudget budget) {
    // strings and numbers (the usual sets): sorted and deduplicated in O(n log n)
    if (in.stream().allMatch(v -> v instanceof Value.StringValue)) {
      TreeMap<String, Value> byText = new TreeMap<>();
      in.forEach(v -> byText.putIfAbsent(((Value.StringValue) v).value(), v));
      return new ArrayList<>(byText.values());
    }
    if (in.stream().allMatch(v -> v instanceof Value.NumberValue)) {
      TreeMap<BigDecimal, Value> byNumber = new TreeMap<>();
      in.forEach(v -> byNumber.putIfAbsent(((Value.NumberValue) v).value(), v));
      return new ArrayList<>(byNumber.values());
    }
    List<Value> out = new ArrayList<>();
    for (Value v : in) {
      budget.checkDeadline(null); // quadratic in the number of elements
      if (out.stream().noneMatch(x -> Conversions.valuesEqual(x, v))) {
        out.add(v);
      }
    }
    if (out.stream().allMatch(v -> v instanceof Value.StringValue)) {
      out.sort(
          (x, y) -> ((Value.StringValue) x).value().compareTo(((Value.StringValue) y).value()));
    } else if (out.stream().allMatch(v -> v instanceof Value.NumberValue)) {
      out.sort(
          (x, y) -> ((Value.NumberValue) x).value().compareTo(((Value.NumberValue) y).value()));
    }
    return out;
  }

  /** Whether {@code l} holds {@code v}; linear, so callers that loop over it stop on time. */
  private static boolean containsValue(List<Value> l, Value v, EvalBudget budget) {
    budget.checkDeadline(null);
    return l.stream().anyMatch(x -> Conversions.valuesEqual(x, v));
  }

  private static Value setunion(List<Value> a, EvalContext c) {
    List<Value> all = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      all.addAll(list(a, i));
    }
    return Value.list(toSet(all, EvalBudget.of(c)));
  }

  private static Value setintersection(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>(list(a, 0));
    for (int i = 1; i < a.size(); i++) {
      List<Value> other = list(a, i);
      out.removeIf(v -> !containsValue(other, v, EvalBudget.of(c)));
    }
    return Value.list(toSet(out, EvalBudget.of(c)));
  }

  private static Value setsubtract(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>(list(a, 0));
    List<Value> other = list(a, 1);
    out.removeIf(v -> containsValue(other, v, EvalBudget.of(c)));
    return Value.list(toSet(out, EvalBudget.of(c)));
  }

  private static Value setproduct(List<Value> a, EvalContext c) {
    long product = 1;
    for (int i = 0; i < a.size(); i++) {
      int size = list(a, i).size();
      product = size == 0 ? 0 : Math.min(Integer.MAX_VALUE, product * size);
    }
    // counted before it is built: the product of a few large sets is too large to build
    EvalBudget.of(c).chargeElements(product * a.size(), "setproduct()");
    List<List<Value>> acc = new ArrayList<>();
    acc.add(List.of());
    for (int i = 0; i < a.size(); i++) {
      List<Value> l = list(a, i);
      List<List<Value>> next = new ArrayList<>();
      for (List<Value> prefix : acc) {
        for (Value v : l) {
          List<Value> p = new ArrayList<>(prefix);
          p.add(v);
          next.add(p);
        }
      }
      acc = next;
    }
    return Value.list(acc.stream().map(x -> (Value) Value.list(x)).toList());
  }

  private static Value transpose(List<Value> a, EvalContext c) {
    Map<String, List<Value>> out = new TreeMap<>();
    for (Map.Entry<String, Value> e : map(a, 0).entrySet()) {
      if (!(e.getValue() instanceof Value.ListValue l)) {
        throw new FunctionException(0, "the map values must be lists of strings.");
      }
      for (int i = 0; i < l.elements().size(); i++) {
        out.computeIfAbsent(str(l.elements(), i), k -> new ArrayList<>())
            .add(Value.string(e.getKey()));
      }
    }
    Map<String, Value> m = new LinkedHashMap<>();
    out.forEach((k, v) -> m.put(k, Value.list(v)));
    return Value.object(m);
  }

  private static Value one(List<Value> a, EvalContext c) {
    if (a.get(0).isNull()) {
      return Value.NULL;
    }
    List<Value> l = list(a, 0);
    return switch (l.size()) {
      case 0 -> Value.NULL;
      case 1 -> l.get(0);
      default ->
          throw new FunctionException(
              0, "must be a list, set, or tuple value with either zero or one elements.");
    };
  }

  private static Value allAny(List<Value> a, boolean all) {
    List<Value> l = list(a, 0);
    for (int i = 0; i < l.size(); i++) {
      Value v = l.get(i);
      boolean b =
          !v.isNull()
              && Conversions.toBool(v)
                  .orElseThrow(() -> new FunctionException(0, "the list elements must be bools."));
      if (all && !b) {
        return Value.FALSE;
      }
      if (!all && b) {
        return Value.TRUE;
      }
    }
    return Value.bool(all);
  }

  private static Value coalescelist(List<Value> a, EvalContext c) {
    for (int i = 0; i < a.size(); i++) {
      if (!list(a, i).isEmpty()) {
        return a.get(i);
      }
    }
    throw new FunctionException(-1, "no non-null, non-empty arguments.");
  }

  private static Value chunklist(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    int size = integer(a, 1);
    if (size < 0) {
      throw new FunctionException(1, "the size argument must be positive.");
    }
    if (size == 0) {
      return Value.list(List.of(Value.list(l)));
    }
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < l.size(); i += size) {
      out.add(Value.list(l.subList(i, Math.min(l.size(), i + size))));
    }
    return Value.list(out);
  }

  private static Value matchkeys(List<Value> a, EvalContext c) {
    List<Value> values = list(a, 0);
    List<Value> keys = list(a, 1);
    List<Value> search = list(a, 2);
    if (values.size() != keys.size()) {
      throw new FunctionException(-1, "the length of keys and values should be equal.");
    }
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (containsValue(search, keys.get(i), EvalBudget.of(c))) {
        out.add(values.get(i));
      }
    }
    return Value.list(out);
  }
}
