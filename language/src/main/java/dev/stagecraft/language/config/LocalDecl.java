package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;

/**
 * One entry of a {@code locals { }} block; or, in a configuration with modules flattened into one
 * ({@link ModuleFlattener}), a called module's input variable: {@code moduleVariable} is its
 * declaration, {@code expr} the module call's argument (when {@code given}), evaluated in the
 * caller, then converted and checked as the variable says.
 */
public record LocalDecl(
    String name, Expression expr, SourceRange range, VariableDecl moduleVariable, boolean given) {

  public LocalDecl(String name, Expression expr, SourceRange range) {
    this(name, expr, range, null, true);
  }
}
