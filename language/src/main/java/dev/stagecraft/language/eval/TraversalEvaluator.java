package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * References ({@code var.x}, {@code aws_instance.web.id}, names a 'for' expression binds),
 * attribute and index steps, and splats ({@code list[*].id}) for one {@link Evaluator.Run}.
 */
final class TraversalEvaluator {
  private final Evaluator.Run run;

  TraversalEvaluator(Evaluator.Run run) {
    this.run = run;
  }

  /** A traversal from a root: a name bound in {@code scope}, else one the context resolves. */
  Value scopeTraversal(Traversal t, Map<String, Value> scope) {
    Value root = scope.get(t.root());
    if (root == null) {
      Optional<Value> r = run.ctx.resolve(t.root());
      if (r.isEmpty()) {
        return undeclared(t);
      }
      root = r.get();
    }
    Value v = root;
    for (int i = 0; i < t.steps().size(); i++) {
      v = step(v, t.steps().get(i), i == 0 ? t : null);
    }
    return v;
  }

  private Value undeclared(Traversal t) {
    if (t.isResourceReference()) {
      return run.error(
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
    return run.error(
        "Unknown variable",
        "There is no variable named \""
            + t.root()
            + "\" here. References start with var., local., count., each., self., path.,"
            + " terraform. or a resource type.",
        t.rootRange());
  }

  /** One step from {@code v}; {@code firstOf}: the traversal whose first step it is, or null. */
  Value step(Value v, Traversal.Step s, Traversal firstOf) {
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
    run.diags().add(AttributeErrors.notFound(v, name, range, firstOf));
    return Value.unknown();
  }

  /** {@code coll[key]}; errors at {@code range} (the key's). */
  Value index(Value coll, Value key, SourceRange range) {
    if (!coll.isKnown() || !key.isKnown()) {
      return Value.unknown().markLike(coll, key);
    }
    return switch (coll) {
      case Value.ListValue l -> listIndex(l, key, range);
      case Value.ObjectValue o -> mapIndex(o, key, range);
      case Value.NullValue n ->
          run.error(
              "Attempt to index null value",
              "This value is null, so it does not have any indices.",
              range);
      default ->
          run.error(
              "Invalid index",
              "This value (" + coll.typeName() + ") does not have any indices.",
              range);
    };
  }

  private Value listIndex(Value.ListValue l, Value key, SourceRange range) {
    Optional<BigDecimal> n = Conversions.toNumber(key);
    if (n.isEmpty()) {
      return run.error(
          "Invalid index",
          "A list index must be a number, but the given key is " + key.typeName() + ".",
          range);
    }
    BigDecimal idx = n.get();
    if (idx.stripTrailingZeros().scale() > 0) {
      return run.error(
          "Invalid index", "The index must be a whole number, not " + shown(key) + ".", range);
    }
    if (idx.signum() < 0 || idx.compareTo(BigDecimal.valueOf(l.elements().size())) >= 0) {
      return run.error(
          "Invalid index",
          "The given key does not identify an element in this collection value: index "
              + Value.formatNumber(idx)
              + " is out of range for a list of "
              + l.elements().size()
              + " element(s).",
          range);
    }
    return l.elements().get(idx.intValueExact()).markLike(l, key);
  }

  private Value mapIndex(Value.ObjectValue o, Value key, SourceRange range) {
    Optional<String> k = Conversions.toStr(key);
    if (k.isEmpty()) {
      return run.error(
          "Invalid index",
          "A map key must be a string, but the given key is " + key.typeName() + ".",
          range);
    }
    Value r = o.get(k.get());
    if (r == null) {
      return run.error(
          "Invalid index",
          "The given key does not identify an element in this collection value: there is no"
              + " key "
              + (key.isSensitive() ? Value.SENSITIVE_TEXT : "\"" + k.get() + "\"")
              + ".",
          range);
    }
    return r.markLike(o, key);
  }

  /** A value for a message: its text, or {@code (sensitive value)}. */
  private static String shown(Value v) {
    return v.isSensitive() ? Value.SENSITIVE_TEXT : v.asString();
  }

  /** {@code source[*].steps}: the steps applied to each element (a non-list is one element). */
  Value splat(Expression.Splat sp, Map<String, Value> scope) {
    Value src = run.eval(sp.source(), scope);
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
    return run.budget.charge(Value.list(out), "this splat", sp.range()).markLike(src);
  }
}
