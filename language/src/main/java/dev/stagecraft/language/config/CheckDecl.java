package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import java.util.List;

/**
 * {@code check "name" { assert { condition = ..., error_message = ... } ... }}: assertions about
 * the infrastructure, evaluated after planning and again after apply, whose failures are warnings
 * (they never stop a plan or an apply). Nothing depends on a check.
 */
public record CheckDecl(String name, List<Assertion> asserts, SourceRange range) {

  public CheckDecl {
    asserts = List.copyOf(asserts);
  }

  /** The address Terraform gives a check block ({@code check.NAME}). */
  public String address() {
    return "check." + name;
  }

  /** One {@code assert} block. */
  public record Assertion(Expression condition, Expression errorMessage, SourceRange range) {}
}
