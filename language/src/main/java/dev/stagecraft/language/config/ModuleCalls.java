package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decodes {@code module} blocks into {@link ModuleCallDecl}s: {@code source} (a literal string),
 * the meta-arguments {@code count}, {@code for_each}, {@code depends_on}, {@code providers}
 * (accepted and ignored with a warning: Stagecraft's resource types need no provider configuration)
 * and {@code version} (only with a registry source, which is refused later), and the inputs.
 */
final class ModuleCalls {
  private final Diagnostics d;
  private final Map<String, ModuleCallDecl> calls = new LinkedHashMap<>();

  ModuleCalls(Diagnostics d) {
    this.d = d;
  }

  List<ModuleCallDecl> calls() {
    return new ArrayList<>(calls.values());
  }

  void call(Body.Block b, List<Traversal> dependsOn) {
    String name = b.labels().get(0);
    String source = null;
    var sourceRange = b.typeRange();
    Optional<Expression> count = Optional.empty();
    Optional<Expression> forEach = Optional.empty();
    Map<String, AttributeDecl> inputs = new LinkedHashMap<>();
    for (Body.Attribute a : b.body().attributes()) {
      switch (a.name()) {
        case "source" -> {
          sourceRange = a.expr().range();
          source = Literals.string(a.expr()).orElse(null);
          if (source == null) {
            d.error(
                "Invalid module source",
                "The source of a module call must be a literal string, such as source ="
                    + " \"./modules/app\"; it is read before anything is evaluated.",
                a.expr().range());
          }
        }
        case "count" -> count = Optional.of(a.expr());
        case "for_each" -> forEach = Optional.of(a.expr());
        case "depends_on", "version" -> {}
        case "providers" ->
            d.warning(
                "Ignored providers argument",
                "Stagecraft's resource types need no provider configuration, so the providers"
                    + " argument of module \""
                    + name
                    + "\" is ignored.",
                a.nameRange());
        default -> inputs.put(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
      }
    }
    for (Body.Block nb : b.body().blocks()) {
      d.error(
          "Unsupported block type",
          "Blocks of type \"" + nb.type() + "\" are not expected in a module call.",
          nb.typeRange());
    }
    if (source == null) {
      if (b.body().attributes().stream().noneMatch(a -> a.name().equals("source"))) {
        d.error(
            "Missing required argument",
            "The argument \"source\" is required in module \""
                + name
                + "\", such as source = \"./modules/app\".",
            b.typeRange());
      }
      return;
    }
    if (count.isPresent() && forEach.isPresent()) {
      d.error(
          "Invalid combination of \"count\" and \"for_each\"",
          "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should"
              + " be used to be explicit about the number of module instances to be created.",
          forEach.get().range());
    }
    ModuleCallDecl call =
        new ModuleCallDecl(name, source, sourceRange, inputs, count, forEach, dependsOn, b.range());
    ModuleCallDecl prev = calls.putIfAbsent(name, call);
    if (prev != null) {
      d.error(
          "Duplicate module call",
          "A module call named \""
              + name
              + "\" was already defined at "
              + prev.range()
              + ". Module calls must have unique names within a module.",
          b.labelRanges().get(0));
    }
  }
}
