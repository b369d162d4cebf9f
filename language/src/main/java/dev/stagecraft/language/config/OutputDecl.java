package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.List;
import java.util.Optional;

/** {@code output "name" { value = ... }}. */
public record OutputDecl(
    String name,
    Expression value,
    Optional<String> description,
    boolean sensitive,
    List<Traversal> dependsOn,
    List<BlockDecl> preconditions,
    SourceRange range) {
  public OutputDecl {
    dependsOn = List.copyOf(dependsOn);
    preconditions = List.copyOf(preconditions);
  }
}
