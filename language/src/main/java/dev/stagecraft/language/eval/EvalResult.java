package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.Diagnostics;

/**
 * The outcome of evaluating an expression. When {@code diagnostics} has errors, {@code value} is
 * {@link Value#unknown()} (or partially unknown) and must not be used.
 */
public record EvalResult(Value value, Diagnostics diagnostics) {
  public boolean hasErrors() {
    return diagnostics.hasErrors();
  }
}
