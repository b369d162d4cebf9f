package dev.stagecraft.language.config;

import static dev.stagecraft.language.config.ConfigLoader.QUOTED_REFERENCE;
import static dev.stagecraft.language.config.ConfigLoader.QUOTED_REFERENCE_DETAIL;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code depends_on} lists of resources, outputs and module calls, with Terraform 0.11's quoted
 * references accepted under Terraform's deprecation warning. Resource references are checked once
 * the whole module is read, since a resource may be declared in a later file.
 */
final class DependsOnLists {
  private final Diagnostics d;
  private final List<Traversal> resourcesToCheck = new ArrayList<>();

  DependsOnLists(Diagnostics d) {
    this.d = d;
  }

  /**
   * Reads a {@code depends_on} list: whole resources (checked against the declared ones by {@link
   * #checkResourcesDeclared}), input variables, local values or whole modules.
   */
  List<Traversal> parse(Body.Attribute a) {
    if (!(a.expr() instanceof Expression.Tuple t)) {
      d.error(
          "Invalid depends_on",
          "depends_on must be a list of resource references, e.g. depends_on ="
              + " [stateful_provisioning.app].",
          a.expr().range());
      return List.of();
    }
    List<Traversal> out = new ArrayList<>();
    for (Expression element : t.elements()) {
      Expression e = unquotedReference(element);
      if (e instanceof Expression.ScopeTraversal st
          && st.traversal().isResourceReference()
          && st.traversal().steps().size() == 1) {
        out.add(st.traversal());
        resourcesToCheck.add(st.traversal());
      } else if (e instanceof Expression.ScopeTraversal st
          && (st.traversal().root().equals("var")
              || st.traversal().root().equals("local")
              || st.traversal().root().equals("module"))
          && st.traversal().steps().size() == 1) {
        // as Terraform allows: an input variable, a local value or a whole module
        out.add(st.traversal());
      } else {
        d.error(
            "Invalid depends_on reference",
            "depends_on may only refer to whole resources, like stateful_provisioning.app,"
                + " input variables or local values, without attribute access or indexes"
                + (e instanceof Expression.ScopeTraversal st2
                    ? "; found " + st2.traversal() + "."
                    : "; found an expression."),
            e.range());
      }
    }
    return out;
  }

  /**
   * A reference written in quotes ({@code "null_resource.a"}), as Terraform 0.11 required: accepted
   * with Terraform's deprecation warning, as the reference it names; anything else as it is.
   */
  Expression unquotedReference(Expression e) {
    if (!(e instanceof Expression.Template tpl) || !tpl.isLiteral()) {
      return e;
    }
    SourcePos start = e.range().start();
    ExpressionResult parsed =
        Parser.parseExpression(
            e.range().file(),
            tpl.literalText(),
            new SourcePos(start.line(), start.column() + 1, start.offset() + 1));
    if (parsed.diagnostics().hasErrors()
        || !(parsed.expression() instanceof Expression.ScopeTraversal)) {
      return e;
    }
    d.warning(QUOTED_REFERENCE, QUOTED_REFERENCE_DETAIL, e.range());
    return parsed.expression();
  }

  /** Reports every resource a {@code depends_on} names that is not among {@code declared}. */
  void checkResourcesDeclared(Set<String> declared) {
    for (Traversal t : resourcesToCheck) {
      String addr = t.resourceAddress().orElseThrow();
      if (!declared.contains(addr)) {
        d.error(
            "Reference to undeclared resource",
            "depends_on refers to "
                + addr
                + ", which is not declared in this configuration. Declare it or remove the"
                + " reference.",
            t.range());
      }
    }
  }
}
