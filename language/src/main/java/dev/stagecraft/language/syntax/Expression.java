package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.SourceRange;
import java.math.BigDecimal;
import java.util.List;

/**
 * An expression of HCL native syntax. Immutable; every node knows its {@link #range()}. The node
 * types are nested records so that {@code switch} over them is exhaustive.
 */
public sealed interface Expression
    permits Expression.Literal,
        Expression.Template,
        Expression.ScopeTraversal,
        Expression.RelativeTraversal,
        Expression.Index,
        Expression.Splat,
        Expression.FunctionCall,
        Expression.Tuple,
        Expression.ObjectCons,
        Expression.Unary,
        Expression.Binary,
        Expression.Conditional,
        Expression.Parens,
        Expression.ForExpr {

  SourceRange range();

  /**
   * The references (variable traversals) this expression contains, in source order, excluding names
   * bound by enclosing {@code for} expressions/directives.
   */
  default List<Traversal> traversals() {
    return References.of(this);
  }

  /** A number ({@link BigDecimal}), string, boolean or null literal. */
  record Literal(Object value, SourceRange range) implements Expression {
    public static Literal number(BigDecimal n, SourceRange r) {
      return new Literal(n, r);
    }
  }

  /**
   * A string template (quoted or heredoc). A template that is exactly one interpolation ({@code
   * "${x}"}) evaluates to the value of {@code x} unconverted, as in Terraform.
   */
  record Template(List<TemplatePart> parts, boolean heredoc, SourceRange range)
      implements Expression {
    public Template {
      parts = List.copyOf(parts);
    }

    /** True if this template is a plain literal string without interpolations or directives. */
    public boolean isLiteral() {
      return parts.stream().allMatch(p -> p instanceof TemplatePart.Literal);
    }

    /** The literal text if {@link #isLiteral()}. */
    public String literalText() {
      StringBuilder sb = new StringBuilder();
      for (TemplatePart p : parts) {
        if (p instanceof TemplatePart.Literal l) {
          sb.append(l.text());
        }
      }
      return sb.toString();
    }
  }

  /** A reference starting at a root name: {@code var.x}, {@code aws_instance.web[0].id}. */
  record ScopeTraversal(Traversal traversal) implements Expression {
    @Override
    public SourceRange range() {
      return traversal.range();
    }
  }

  /** Static steps applied to the result of another expression: {@code f(x).a[0]}. */
  record RelativeTraversal(Expression source, List<Traversal.Step> steps, SourceRange range)
      implements Expression {
    public RelativeTraversal {
      steps = List.copyOf(steps);
    }
  }

  /** A dynamic index: {@code collection[key]} where key is not a literal. */
  record Index(Expression collection, Expression key, SourceRange range) implements Expression {}

  /**
   * A splat: {@code source[*].each} (full) or {@code source.*.each} (legacy attribute splat).
   * {@code each} are the steps applied to every element.
   */
  record Splat(
      Expression source, List<Traversal.Step> each, boolean attributeSplat, SourceRange range)
      implements Expression {
    public Splat {
      each = List.copyOf(each);
    }
  }

  /** {@code name(args...)}; {@code expandFinal} when the last argument is followed by "...". */
  record FunctionCall(
      String name,
      List<Expression> args,
      boolean expandFinal,
      SourceRange nameRange,
      SourceRange range)
      implements Expression {
    public FunctionCall {
      args = List.copyOf(args);
    }
  }

  record Tuple(List<Expression> elements, SourceRange range) implements Expression {
    public Tuple {
      elements = List.copyOf(elements);
    }
  }

  /** An object constructor item; a bare identifier key is a string {@link Literal}. */
  record ObjectItem(Expression key, Expression value) {}

  record ObjectCons(List<ObjectItem> items, SourceRange range) implements Expression {
    public ObjectCons {
      items = List.copyOf(items);
    }
  }

  enum UnaryOp {
    NEGATE("-"),
    NOT("!");

    public final String symbol;

    UnaryOp(String symbol) {
      this.symbol = symbol;
    }
  }

  record Unary(UnaryOp op, Expression operand, SourceRange range) implements Expression {}

  enum BinaryOp {
    OR("||", 1),
    AND("&&", 2),
    EQ("==", 3),
    NE("!=", 3),
    LT("<", 4),
    LE("<=", 4),
    GT(">", 4),
    GE(">=", 4),
    ADD("+", 5),
    SUB("-", 5),
    MUL("*", 6),
    DIV("/", 6),
    MOD("%", 6);

    public final String symbol;
    public final int precedence;

    BinaryOp(String symbol, int precedence) {
      this.symbol = symbol;
      this.precedence = precedence;
    }
  }

  record Binary(BinaryOp op, Expression left, Expression right, SourceRange range)
      implements Expression {}

  record Conditional(
      Expression condition, Expression trueResult, Expression falseResult, SourceRange range)
      implements Expression {}

  record Parens(Expression inner, SourceRange range) implements Expression {}

  /**
   * {@code [for k, v in coll : value if cond]} or {@code {for k, v in coll : key => value... if
   * cond}}. {@code keyVar} is null when only one variable is given; {@code keyExpr} is null for the
   * tuple form.
   */
  record ForExpr(
      String keyVar,
      String valueVar,
      Expression collection,
      Expression keyExpr,
      Expression valueExpr,
      Expression condition,
      boolean grouping,
      SourceRange range)
      implements Expression {
    public boolean isObject() {
      return keyExpr != null;
    }
  }
}
