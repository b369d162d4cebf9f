package dev.stagecraft.language.eval;

import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.TemplatePart;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * String templates ({@code "a ${x} b"}, heredocs) and their directives ({@code %{ if }}, {@code %{
 * for }}) for one {@link Evaluator.Run}. A template that uses a value carries its marks; one with
 * an unknown part is unknown.
 */
final class TemplateEvaluator {
  private static final String TEMPLATE = "this template";

  private final Evaluator.Run run;

  TemplateEvaluator(Evaluator.Run run) {
    this.run = run;
  }

  /** The text being rendered, whether a part was unknown, and the marks of the values used. */
  private static final class Acc {
    final StringBuilder sb = new StringBuilder();
    boolean unknown;
    Value marks = Value.NULL;

    /** Carries the marks of a value the template used. */
    void used(Value v) {
      marks = marks.markLike(v);
    }
  }

  /** The template's string; a lone interpolation ({@code "${x}"}) is the value itself. */
  Value template(Expression.Template t, Map<String, Value> scope) {
    if (t.parts().size() == 1 && t.parts().get(0) instanceof TemplatePart.Interpolation i) {
      return run.eval(i.expr(), scope);
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
            : run.budget.charge(Value.string(acc.sb.toString()), TEMPLATE, t.range());
    return r.markLike(acc.marks);
  }

  private void render(List<TemplatePart> parts, Map<String, Value> scope, Acc acc) {
    for (TemplatePart p : parts) {
      switch (p) {
        case TemplatePart.Literal l -> run.budget.append(acc.sb, l.text(), TEMPLATE);
        case TemplatePart.Interpolation i -> interpolation(i, scope, acc);
        case TemplatePart.If i -> ifDirective(i, scope, acc);
        case TemplatePart.For f -> forDirective(f, scope, acc);
      }
    }
  }

  private void interpolation(TemplatePart.Interpolation i, Map<String, Value> scope, Acc acc) {
    Value v = run.eval(i.expr(), scope);
    acc.used(v);
    if (!v.isKnown()) {
      acc.unknown = true;
    } else if (v.isNull()) {
      run.error(
          "Invalid template interpolation value",
          "The expression result is null. Cannot include a null value in a string"
              + " template; use coalesce() or a conditional to provide a default.",
          i.expr().range());
      acc.unknown = true;
    } else {
      Optional<String> s = Conversions.toStr(v);
      if (s.isEmpty()) {
        run.error(
            "Invalid template interpolation value",
            "Cannot include the given value in a string template: string required, but"
                + " got "
                + v.typeName()
                + ". Use join() or jsonencode() to turn a collection into a string.",
            i.expr().range());
        acc.unknown = true;
      } else {
        run.budget.append(acc.sb, s.get(), TEMPLATE);
      }
    }
  }

  private void ifDirective(TemplatePart.If i, Map<String, Value> scope, Acc acc) {
    Value c = run.eval(i.condition(), scope);
    acc.used(c);
    if (!c.isKnown()) {
      acc.unknown = true;
      return;
    }
    Optional<Boolean> b = Conversions.toBool(c);
    if (b.isEmpty()) {
      run.error(
          "Invalid template directive condition",
          "The condition of %{ if } must be a bool, but it is " + c.typeName() + ".",
          i.condition().range());
      acc.unknown = true;
      return;
    }
    render(b.get() ? i.thenParts() : i.elseParts(), scope, acc);
  }

  private void forDirective(TemplatePart.For f, Map<String, Value> scope, Acc acc) {
    Value c = run.eval(f.collection(), scope);
    acc.used(c);
    if (!c.isKnown()) {
      acc.unknown = true;
      return;
    }
    List<Map.Entry<Value, Value>> entries =
        run.collections().entries(c, f.collection().range(), "%{ for }");
    if (entries == null) {
      acc.unknown = true;
      return;
    }
    for (Map.Entry<Value, Value> en : entries) {
      render(f.body(), CollectionEvaluator.bind(scope, f.keyVar(), f.valueVar(), en), acc);
    }
  }
}
