package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.SourceRange;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A reference: a root name followed by static attribute/index steps, e.g. {@code var.x}, {@code
 * stateful_provisioning.app.id}, {@code local.m["k"]}, {@code count.index}.
 */
public record Traversal(String root, SourceRange rootRange, List<Step> steps, SourceRange range) {

  /** Roots that are not resource types. */
  public static final Set<String> SPECIAL_ROOTS =
      Set.of("var", "local", "count", "each", "self", "path", "terraform", "module", "data");

  public Traversal {
    steps = List.copyOf(steps);
  }

  /** One step of a traversal. */
  public sealed interface Step permits Attr, Key {
    SourceRange range();
  }

  /** {@code .name}. */
  public record Attr(String name, SourceRange range) implements Step {}

  /**
   * {@code [key]} with a literal key ({@link BigDecimal} or {@link String}), or legacy {@code .0}.
   */
  public record Key(Object key, SourceRange range) implements Step {}

  /** The name after the root if the first step is an attribute ({@code var.NAME}). */
  public Optional<String> firstAttribute() {
    return !steps.isEmpty() && steps.get(0) instanceof Attr a
        ? Optional.of(a.name())
        : Optional.empty();
  }

  /** True if this refers to a managed resource ({@code type.name...}). */
  public boolean isResourceReference() {
    return !SPECIAL_ROOTS.contains(root) && firstAttribute().isPresent();
  }

  /** {@code type.name} for a resource reference. */
  public Optional<String> resourceAddress() {
    return isResourceReference()
        ? Optional.of(root + "." + firstAttribute().orElseThrow())
        : Optional.empty();
  }

  /** The variable name for {@code var.NAME}. */
  public Optional<String> variableName() {
    return "var".equals(root) ? firstAttribute() : Optional.empty();
  }

  /** The local value name for {@code local.NAME}. */
  public Optional<String> localName() {
    return "local".equals(root) ? firstAttribute() : Optional.empty();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(root);
    for (Step s : steps) {
      switch (s) {
        case Attr a -> sb.append('.').append(a.name());
        case Key k when k.key() instanceof String str ->
            sb.append("[\"").append(str.replace("\"", "\\\"")).append("\"]");
        case Key k -> sb.append('[').append(((BigDecimal) k.key()).toPlainString()).append(']');
      }
    }
    return sb.toString();
  }
}
