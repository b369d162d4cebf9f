package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decodes {@code check} blocks with Terraform's rules ({@code internal/configs/checks.go}): a valid
 * identifier as name, unique in the module; one or more {@code assert} blocks, each with exactly a
 * {@code condition} that refers to something and an {@code error_message}; at most one scoped
 * {@code data} block, which is refused as every data source is here. Part of {@link ConfigLoader};
 * not thread-safe (one per load).
 */
final class CheckBlocks {
  private static final String WHERE = "a check block";

  private final Diagnostics d;
  private final Map<String, CheckDecl> checks = new LinkedHashMap<>();

  CheckBlocks(Diagnostics d) {
    this.d = d;
  }

  /** The checks decoded so far, in declaration order. */
  List<CheckDecl> checks() {
    return List.copyOf(checks.values());
  }

  /** Decodes {@code check "NAME" { ... }} (exactly one label, already checked). */
  void check(Body.Block b) {
    String name = b.labels().get(0);
    if (!isIdentifier(name)) {
      d.error(
          "Invalid check block name",
          "A name must start with a letter or underscore and may contain only letters, digits,"
              + " underscores, and dashes.",
          b.labelRanges().get(0));
    }
    for (Body.Attribute a : b.body().attributes()) {
      d.error(
          "Unsupported argument",
          "An argument named \""
              + a.name()
              + "\" is not expected in "
              + WHERE
              + ". A check block holds only assert blocks (and at most one data block, which"
              + " Stagecraft does not support).",
          a.nameRange());
    }
    List<CheckDecl.Assertion> asserts = new ArrayList<>();
    int assertBlocks = 0;
    Body.Block data = null;
    for (Body.Block nb : b.body().blocks()) {
      switch (nb.type()) {
        case "assert" -> {
          assertBlocks++;
          assertion(nb, name).ifPresent(asserts::add);
        }
        case "data" -> {
          if (data != null) {
            d.error(
                "Multiple data resource blocks",
                "This check block already has a data resource defined at " + data.typeRange() + ".",
                nb.typeRange());
          } else if (nb.labels().size() != 2) {
            data = nb;
            d.error(
                "Invalid data block",
                "A data block needs two labels, its type and its name: data \"TYPE\" \"NAME\" {"
                    + " ... }.",
                nb.typeRange());
          } else {
            data = nb;
            UnsupportedDataSources.report(nb, d, false);
          }
        }
        default ->
            d.error(
                "Unsupported block type",
                "Blocks of type \""
                    + nb.type()
                    + "\" are not expected in "
                    + WHERE
                    + ". Allowed blocks: assert, data.",
                nb.typeRange());
      }
    }
    if (assertBlocks == 0) {
      d.error(
          "Zero assert blocks",
          "Check blocks must have at least one assert block. Add assert { condition = <expression>,"
              + " error_message = \"...\" } to check \""
              + name
              + "\".",
          b.typeRange());
    }
    CheckDecl check = new CheckDecl(name, asserts, b.range());
    CheckDecl prev = checks.putIfAbsent(name, check);
    if (prev != null) {
      d.error(
          "Duplicate check \"" + name + "\" configuration",
          "A check block named \""
              + name
              + "\" was already declared at "
              + prev.range()
              + ". Check blocks must be unique within each module.",
          b.labelRanges().get(0));
    }
  }

  /** HCL's identifier: a letter or underscore, then letters, digits, underscores and dashes. */
  static boolean isIdentifier(String name) {
    if (name.isEmpty() || !(Character.isLetter(name.charAt(0)) || name.charAt(0) == '_')) {
      return false;
    }
    return name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-');
  }

  private Optional<CheckDecl.Assertion> assertion(Body.Block b, String check) {
    if (!b.labels().isEmpty()) {
      d.error(
          "Extraneous label for assert",
          "An assert block has no labels; remove them.",
          b.labelRanges().get(0));
    }
    Expression condition = null;
    Expression message = null;
    for (Body.Attribute a : b.body().attributes()) {
      switch (a.name()) {
        case "condition" -> condition = a.expr();
        case "error_message" -> message = a.expr();
        default ->
            d.error(
                "Unsupported argument",
                "An argument named \""
                    + a.name()
                    + "\" is not expected in an assert block. Allowed arguments: condition,"
                    + " error_message.",
                a.nameRange());
      }
    }
    for (Body.Block nb : b.body().blocks()) {
      d.error(
          "Unsupported block type",
          "Blocks of type \"" + nb.type() + "\" are not expected in an assert block.",
          nb.typeRange());
    }
    boolean ok = true;
    for (String missing :
        condition == null && message == null
            ? List.of("condition", "error_message")
            : condition == null
                ? List.of("condition")
                : message == null ? List.of("error_message") : List.<String>of()) {
      ok = false;
      d.error(
          "Missing required argument",
          "The argument \""
              + missing
              + "\" is required in an assert block of check \""
              + check
              + "\", but no definition was found.",
          b.typeRange());
    }
    if (condition != null && condition.traversals().isEmpty()) {
      ok = false;
      // Terraform's rule for every condition: a constant would not be checking anything
      d.error(
          "Invalid assert expression",
          "The condition expression must refer to at least one object from elsewhere in the"
              + " configuration, or else its result would not be checking anything.",
          condition.range());
    }
    return ok
        ? Optional.of(new CheckDecl.Assertion(condition, message, b.range()))
        : Optional.empty();
  }
}
