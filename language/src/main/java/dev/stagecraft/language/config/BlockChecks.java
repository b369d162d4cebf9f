package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks every block decoder shares: label counts, unexpected arguments and nested blocks,
 * literal strings, booleans and keywords, duplicate singleton blocks. Each reports a diagnostic at
 * the offending item that names what is allowed.
 */
final class BlockChecks {
  private final Diagnostics d;

  BlockChecks(Diagnostics d) {
    this.d = d;
  }

  boolean labels(Body.Block b, String... names) {
    if (b.labels().size() == names.length) {
      return true;
    }
    if (b.labels().size() < names.length) {
      d.error(
          "Missing " + names[b.labels().size()] + " for " + b.type(),
          "All "
              + b.type()
              + " blocks must have "
              + names.length
              + " label(s): "
              + String.join(", ", names)
              + ". Example: "
              + example(b.type())
              + ".",
          b.typeRange());
    } else {
      d.error(
          "Extraneous label for " + b.type(),
          "A "
              + b.type()
              + " block expects "
              + names.length
              + " label(s)"
              + (names.length == 0 ? "" : " (" + String.join(", ", names) + ")")
              + "; remove the extra label(s).",
          b.labelRanges().get(names.length));
    }
    return false;
  }

  private static String example(String type) {
    return switch (type) {
      case "resource" -> "resource \"stateful_provisioning\" \"app\" { ... }";
      case "provisioner" -> "provisioner \"local-exec\" { ... }";
      default -> type + " \"name\" { ... }";
    };
  }

  void unexpectedAttribute(Body.Attribute a, String where, Set<String> allowed) {
    d.error(
        "Unsupported argument",
        "An argument named \""
            + a.name()
            + "\" is not expected in "
            + where
            + ". Allowed arguments: "
            + String.join(", ", new TreeSet<>(allowed))
            + ".",
        a.nameRange());
  }

  void unexpectedBlock(Body.Block b, String where, Set<String> allowed) {
    d.error(
        "Unsupported block type",
        "Blocks of type \""
            + b.type()
            + "\" are not expected in "
            + where
            + "."
            + (allowed.isEmpty()
                ? ""
                : " Allowed blocks: " + String.join(", ", new TreeSet<>(allowed)) + "."),
        b.typeRange());
  }

  Optional<String> literalString(Body.Attribute a, String what) {
    Optional<String> s = Literals.string(a.expr());
    if (s.isEmpty()) {
      d.error(
          "Invalid " + what,
          "The " + what + " must be a literal string (no references or function calls).",
          a.expr().range());
    }
    return s;
  }

  boolean literalBool(Body.Attribute a, String what) {
    Optional<Boolean> b = Literals.bool(a.expr());
    if (b.isEmpty()) {
      d.error(
          "Invalid " + what,
          "The " + what + " must be the literal true or false.",
          a.expr().range());
      return false;
    }
    return b.get();
  }

  void duplicateBlock(Body.Block nb, BlockDecl prev) {
    d.error(
        "Duplicate " + nb.type() + " block",
        "Only one "
            + nb.type()
            + " block is allowed here; another was declared at "
            + prev.range()
            + ".",
        nb.typeRange());
  }

  /** Accepts a bare keyword ({@code when = destroy}) or a literal string. */
  String keyword(Body.Attribute a, Set<String> allowed, String dflt) {
    Optional<String> kw = Optional.empty();
    if (a.expr() instanceof Expression.ScopeTraversal st && st.traversal().steps().isEmpty()) {
      kw = Optional.of(st.traversal().root());
    } else {
      kw = Literals.string(a.expr());
    }
    if (kw.isEmpty() || !allowed.contains(kw.get())) {
      d.error(
          "Invalid \"" + a.name() + "\" value",
          "The \""
              + a.name()
              + "\" argument must be one of "
              + String.join(" or ", new TreeSet<>(allowed))
              + " (a bare keyword, e.g. "
              + a.name()
              + " = "
              + new TreeSet<>(allowed).last()
              + ").",
          a.expr().range());
      return dflt;
    }
    return kw.get();
  }
}
