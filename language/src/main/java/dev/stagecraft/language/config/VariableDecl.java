package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import java.util.List;
import java.util.Optional;

/** {@code variable "name" { ... }}; {@code type} is the raw type constraint expression. */
public record VariableDecl(
    String name,
    Optional<Expression> defaultValue,
    Optional<Expression> type,
    Optional<String> description,
    boolean sensitive,
    boolean nullable,
    List<BlockDecl> validations,
    SourceRange range) {
  public VariableDecl {
    validations = List.copyOf(validations);
  }

  /** True if the variable has no default and must be given a value. */
  public boolean required() {
    return defaultValue.isEmpty();
  }
}
