package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.Map;
import java.util.Optional;

/**
 * Evaluates expressions to {@link Value}s. Stateless and thread-safe; all per-call state lives in
 * the call. Problems are diagnostics with source ranges; the evaluator never throws for any input.
 * A sub-expression with an error evaluates to unknown so that one mistake does not cascade. Every
 * evaluation counts against the context's {@link EvalBudget}; an exceeded budget ends it with a
 * diagnostic at the expression where it was hit.
 *
 * <p>The evaluator dispatches on the expression kind; each family has its helper: {@link
 * TraversalEvaluator} (references, indexes, splats), {@link TemplateEvaluator} (string templates
 * and their directives), {@link CollectionEvaluator} (tuples, objects, 'for' expressions), {@link
 * CallEvaluator} (function calls, {@code try}, {@code can}) and {@link Operators}.
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
      Value v = new Run(functions, budget.bind(ctx), budget, d).eval(expr, Map.of());
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

  /**
   * One evaluation: its context, budget and diagnostics (replaced while {@code try} and {@code can}
   * evaluate their arguments), and the dispatch over expression kinds that the helpers call back
   * into for sub-expressions.
   */
  static final class Run {
    final EvalContext ctx;
    final EvalBudget budget;
    private Diagnostics diags;
    private final TraversalEvaluator traversals = new TraversalEvaluator(this);
    private final TemplateEvaluator templates = new TemplateEvaluator(this);
    private final CollectionEvaluator collections = new CollectionEvaluator(this);
    private final CallEvaluator calls;

    Run(Functions functions, EvalContext ctx, EvalBudget budget, Diagnostics diags) {
      this.ctx = ctx;
      this.budget = budget;
      this.diags = diags;
      this.calls = new CallEvaluator(this, functions);
    }

    /** The diagnostics the evaluation reports to now. */
    Diagnostics diags() {
      return diags;
    }

    /** Reports to {@code replacement} from now on; returns the diagnostics it replaced. */
    Diagnostics reportTo(Diagnostics replacement) {
      Diagnostics replaced = diags;
      diags = replacement;
      return replaced;
    }

    /** Reports an error; the value of the expression that has it: unknown. */
    Value error(String summary, String detail, SourceRange range) {
      diags.error(summary, detail, range);
      return Value.unknown();
    }

    TraversalEvaluator traversals() {
      return traversals;
    }

    CollectionEvaluator collections() {
      return collections;
    }

    Value eval(Expression e, Map<String, Value> scope) {
      budget.step(e.range());
      return switch (e) {
        case Expression.Literal l -> Value.of(l.value());
        case Expression.Template t -> templates.template(t, scope);
        case Expression.ScopeTraversal st -> traversals.scopeTraversal(st.traversal(), scope);
        case Expression.RelativeTraversal rt -> {
          Value v = eval(rt.source(), scope);
          for (Traversal.Step s : rt.steps()) {
            v = traversals.step(v, s, null);
          }
          yield v;
        }
        case Expression.Index ix -> {
          Value c = eval(ix.collection(), scope);
          Value k = eval(ix.key(), scope);
          yield traversals.index(c, k, ix.key().range());
        }
        case Expression.Splat sp -> traversals.splat(sp, scope);
        case Expression.FunctionCall fc -> calls.call(fc, scope);
        case Expression.Tuple tu -> collections.tuple(tu, scope);
        case Expression.ObjectCons oc -> collections.object(oc, scope);
        case Expression.Unary u -> Operators.unary(u, eval(u.operand(), scope), diags);
        case Expression.Binary b -> {
          Value l = eval(b.left(), scope);
          Value r = eval(b.right(), scope);
          yield Operators.binary(b, l, r, diags);
        }
        case Expression.Conditional c -> conditional(c, scope);
        case Expression.Parens p -> eval(p.inner(), scope);
        case Expression.ForExpr f -> collections.forExpr(f, scope);
      };
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
  }
}
