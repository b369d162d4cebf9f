package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Optional;

/**
 * HCL's unary and binary operators, applied to operands the {@link Evaluator} has evaluated: an
 * unknown operand gives unknown, marks propagate to the result, an unsuitable operand or a division
 * by zero is an error diagnostic and gives unknown.
 */
final class Operators {
  private Operators() {}

  /**
   * Terraform's numbers have 512 bits of precision (about 154 decimal digits); rounding to it also
   * keeps {@code 1e999999999 + 1} from writing out a billion digits.
   */
  private static final MathContext PRECISION = new MathContext(154);

  /** {@code u} applied to its operand's value {@code v}. */
  static Value unary(Expression.Unary u, Value v, Diagnostics diags) {
    if (!v.isKnown()) {
      return v;
    }
    if (u.op() == Expression.UnaryOp.NEGATE) {
      Optional<BigDecimal> n = Conversions.toNumber(v);
      if (n.isEmpty()) {
        return operandError(diags, "-", "a number", v, u.operand().range(), "");
      }
      return Value.number(n.get().negate()).markLike(v);
    }
    Optional<Boolean> b = Conversions.toBool(v);
    if (b.isEmpty()) {
      return operandError(diags, "!", "a bool", v, u.operand().range(), "");
    }
    return Value.bool(!b.get()).markLike(v);
  }

  private static Value operandError(
      Diagnostics diags, String op, String want, Value got, SourceRange r, String side) {
    diags.error(
        "Invalid operand",
        "Unsuitable value for "
            + (side.isEmpty() ? "" : side + " ")
            + "operand of \""
            + op
            + "\": "
            + want
            + " is required, but got "
            + got.typeName()
            + (got.isSensitive()
                ? " " + Value.SENSITIVE_TEXT
                : got instanceof Value.StringValue s ? " \"" + s.value() + "\"" : "")
            + ".",
        r);
    return Value.unknown();
  }

  /** {@code b} applied to its operands' values {@code l} and {@code r}. */
  static Value binary(Expression.Binary b, Value l, Value r, Diagnostics diags) {
    Expression.BinaryOp op = b.op();
    if (op == Expression.BinaryOp.EQ || op == Expression.BinaryOp.NE) {
      if (!l.isWhollyKnown() || !r.isWhollyKnown()) {
        return Value.unknown().markLike(l, r);
      }
      boolean eq = Conversions.valuesEqual(l, r);
      return Value.bool(op == Expression.BinaryOp.EQ ? eq : !eq).markLike(l, r);
    }
    if (!l.isKnown() || !r.isKnown()) {
      return Value.unknown().markLike(l, r);
    }
    if (op == Expression.BinaryOp.AND || op == Expression.BinaryOp.OR) {
      Optional<Boolean> lb = Conversions.toBool(l);
      Optional<Boolean> rb = Conversions.toBool(r);
      if (lb.isEmpty()) {
        return operandError(diags, op.symbol, "a bool", l, b.left().range(), "left");
      }
      if (rb.isEmpty()) {
        return operandError(diags, op.symbol, "a bool", r, b.right().range(), "right");
      }
      boolean res = op == Expression.BinaryOp.AND ? lb.get() && rb.get() : lb.get() || rb.get();
      return Value.bool(res).markLike(l, r);
    }
    Optional<BigDecimal> ln = Conversions.toNumber(l);
    Optional<BigDecimal> rn = Conversions.toNumber(r);
    if (ln.isEmpty()) {
      return operandError(diags, op.symbol, "a number", l, b.left().range(), "left");
    }
    if (rn.isEmpty()) {
      return operandError(diags, op.symbol, "a number", r, b.right().range(), "right");
    }
    BigDecimal x = ln.get();
    BigDecimal y = rn.get();
    Value res =
        switch (op) {
          case ADD -> Value.number(x.add(y, PRECISION));
          case SUB -> Value.number(x.subtract(y, PRECISION));
          case MUL -> Value.number(x.multiply(y, PRECISION));
          case DIV, MOD -> {
            if (y.signum() == 0) {
              diags.error(
                  "Division by zero",
                  "The right operand of \""
                      + op.symbol
                      + "\" is zero, and division by zero is not defined. Guard it with a"
                      + " conditional.",
                  b.right().range());
              yield Value.unknown();
            }
            yield Value.number(
                op == Expression.BinaryOp.DIV
                    ? x.divide(y, MathContext.DECIMAL128)
                    : x.remainder(y, MathContext.DECIMAL128));
          }
          case LT -> Value.bool(x.compareTo(y) < 0);
          case LE -> Value.bool(x.compareTo(y) <= 0);
          case GT -> Value.bool(x.compareTo(y) > 0);
          case GE -> Value.bool(x.compareTo(y) >= 0);
          default -> throw new IllegalStateException("unhandled operator " + op);
        };
    return res.markLike(l, r);
  }
}
