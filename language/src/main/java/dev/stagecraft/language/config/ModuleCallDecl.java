package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code module "name" { source = "...", <inputs> }}: a call of another module (docs/adr/0065).
 *
 * @param source the literal {@code source} string as written
 * @param inputs the arguments that set the called module's input variables
 */
public record ModuleCallDecl(
    String name,
    String source,
    SourceRange sourceRange,
    Map<String, AttributeDecl> inputs,
    Optional<Expression> count,
    Optional<Expression> forEach,
    List<Traversal> dependsOn,
    SourceRange range) {

  public ModuleCallDecl {
    inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    dependsOn = List.copyOf(dependsOn);
  }
}
