package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import dev.stagecraft.language.types.TypeConstraints;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The blocks that name a module's values: {@code variable} (inputs, with their validations), {@code
 * locals} and {@code output}. Names must be unique within a module; a duplicate is reported at its
 * label with the position of the first.
 */
final class ValueBlocks {
  private final Diagnostics d;
  private final BlockChecks checks;
  private final DependsOnLists dependsOn;
  private final Map<String, VariableDecl> variables = new LinkedHashMap<>();
  private final Map<String, LocalDecl> locals = new LinkedHashMap<>();
  private final Map<String, OutputDecl> outputs = new LinkedHashMap<>();

  ValueBlocks(Diagnostics d, BlockChecks checks, DependsOnLists dependsOn) {
    this.d = d;
    this.checks = checks;
    this.dependsOn = dependsOn;
  }

  Map<String, VariableDecl> variables() {
    return variables;
  }

  List<LocalDecl> locals() {
    return new ArrayList<>(locals.values());
  }

  List<OutputDecl> outputs() {
    return new ArrayList<>(outputs.values());
  }

  void variable(Body.Block b) {
    String name = b.labels().get(0);
    Optional<Expression> def = Optional.empty();
    Optional<Expression> type = Optional.empty();
    Optional<String> desc = Optional.empty();
    boolean sensitive = false;
    boolean nullable = true;
    Set<String> allowed = Set.of("default", "type", "description", "sensitive", "nullable");
    for (Body.Attribute a : b.body().attributes()) {
      switch (a.name()) {
        case "default" -> {
          def = Optional.of(a.expr());
          if (!a.expr().traversals().isEmpty()) {
            d.error(
                "Variables not allowed",
                "The default value of variable \""
                    + name
                    + "\" may not refer to other values ("
                    + a.expr().traversals().get(0)
                    + "); use a literal value.",
                a.expr().traversals().get(0).range());
          }
        }
        case "type" -> {
          type = Optional.of(a.expr());
          d.addAll(TypeConstraints.parse(a.expr()).diagnostics());
        }
        case "description" -> desc = checks.literalString(a, "description");
        case "sensitive" -> sensitive = checks.literalBool(a, "value for \"sensitive\"");
        case "nullable" -> nullable = checks.literalBool(a, "value for \"nullable\"");
        default -> checks.unexpectedAttribute(a, "a variable block", allowed);
      }
    }
    List<BlockDecl> validations = new ArrayList<>();
    for (Body.Block nb : b.body().blocks()) {
      if (nb.type().equals("validation")) {
        BlockDecl v = BlockDecl.of(nb);
        if (v.attribute("condition").isEmpty() || v.attribute("error_message").isEmpty()) {
          d.error(
              "Invalid validation block",
              "A validation block needs both \"condition\" and \"error_message\".",
              nb.typeRange());
        }
        validations.add(v);
      } else {
        checks.unexpectedBlock(nb, "a variable block", Set.of("validation"));
      }
    }
    VariableDecl v =
        new VariableDecl(name, def, type, desc, sensitive, nullable, validations, b.range());
    VariableDecl prev = variables.putIfAbsent(name, v);
    if (prev != null) {
      d.error(
          "Duplicate variable declaration",
          "A variable named \""
              + name
              + "\" was already declared at "
              + prev.range()
              + ". Variable names must be unique within a module.",
          b.labelRanges().get(0));
    }
  }

  void locals(Body.Block b) {
    for (Body.Block nb : b.body().blocks()) {
      checks.unexpectedBlock(nb, "a locals block", Set.of());
    }
    for (Body.Attribute a : b.body().attributes()) {
      LocalDecl l = new LocalDecl(a.name(), a.expr(), a.range());
      LocalDecl prev = locals.putIfAbsent(a.name(), l);
      if (prev != null) {
        d.error(
            "Duplicate local value definition",
            "A local value named \""
                + a.name()
                + "\" was already defined at "
                + prev.range()
                + ". Local value names must be unique within a module.",
            a.nameRange());
      }
    }
  }

  void output(Body.Block b) {
    String name = b.labels().get(0);
    Expression value = null;
    Optional<String> desc = Optional.empty();
    boolean sensitive = false;
    List<Traversal> deps = List.of();
    Set<String> allowed = Set.of("value", "description", "sensitive", "depends_on");
    for (Body.Attribute a : b.body().attributes()) {
      switch (a.name()) {
        case "value" -> value = a.expr();
        case "description" -> desc = checks.literalString(a, "description");
        case "sensitive" -> sensitive = checks.literalBool(a, "value for \"sensitive\"");
        case "depends_on" -> deps = dependsOn.parse(a);
        default -> checks.unexpectedAttribute(a, "an output block", allowed);
      }
    }
    List<BlockDecl> pre = new ArrayList<>();
    for (Body.Block nb : b.body().blocks()) {
      if (nb.type().equals("precondition")) {
        pre.add(BlockDecl.of(nb));
      } else {
        checks.unexpectedBlock(nb, "an output block", Set.of("precondition"));
      }
    }
    if (value == null) {
      d.error(
          "Missing required argument",
          "The argument \"value\" is required in output \"" + name + "\": value = <expression>.",
          b.typeRange());
      return;
    }
    OutputDecl o = new OutputDecl(name, value, desc, sensitive, deps, pre, b.range());
    OutputDecl prev = outputs.putIfAbsent(name, o);
    if (prev != null) {
      d.error(
          "Duplicate output definition",
          "An output named \"" + name + "\" was already defined at " + prev.range() + ".",
          b.labelRanges().get(0));
    }
  }
}
