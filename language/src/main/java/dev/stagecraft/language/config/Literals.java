package dev.stagecraft.language.config;

import dev.stagecraft.language.syntax.Expression;
import java.util.Optional;

/** Reads literal values from expressions without evaluating them (for static arguments). */
public final class Literals {
  private Literals() {}

  /** The string if the expression is a literal string (a template without interpolations). */
  public static Optional<String> string(Expression e) {
    if (e instanceof Expression.Template t && t.isLiteral()) {
      return Optional.of(t.literalText());
    }
    if (e instanceof Expression.Literal l && l.value() instanceof String s) {
      return Optional.of(s);
    }
    return Optional.empty();
  }

  /** The bool if the expression is {@code true} or {@code false}. */
  public static Optional<Boolean> bool(Expression e) {
    if (e instanceof Expression.Literal l && l.value() instanceof Boolean b) {
      return Optional.of(b);
    }
    return Optional.empty();
  }
}
