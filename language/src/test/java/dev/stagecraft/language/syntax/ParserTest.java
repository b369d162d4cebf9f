package dev.stagecraft.language.syntax;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParserTest {

  private static Body parseOk(String text) {
    ParseResult r = Parser.parse("main.tf", text);
    assertThat(r.diagnostics().list()).as("diagnostics").isEmpty();
    return r.body();
  }

  private static Expression expr(String text) {
    ExpressionResult r = Parser.parseExpression("expr.tf", text);
    assertThat(r.diagnostics().list()).as("diagnostics for %s", text).isEmpty();
    return r.expression();
  }

  private static List<Diagnostic> errors(String text) {
    return Parser.parse("main.tf", text).diagnostics().errors();
  }

  @Test
  void parsesAttributesAndBlocksWithLabelsInOrder() {
    Body b =
        parseOk(
            """
            a = 1
            resource "stateful_provisioning" app {
              state_key = "x"
              provisioner "local-exec" { command = "echo 1" }
              provisioner "remote-exec" {
                inline = ["a"]
              }
              provisioner "local-exec" {
                command = "echo 3"
              }
            }
            """);
    assertThat(b.attributes()).extracting(Body.Attribute::name).containsExactly("a");
    Body.Block r = b.blocks().get(0);
    assertThat(r.labels()).containsExactly("stateful_provisioning", "app");
    assertThat(r.body().blocks())
        .extracting(x -> x.labels().get(0))
        .containsExactly("local-exec", "remote-exec", "local-exec");
    assertThat(r.range().start().line()).isEqualTo(2);
    assertThat(r.range().end().line()).isEqualTo(11);
  }

  @Test
  void skipsAllThreeCommentStyles() {
    Body b =
        parseOk(
            """
            # hash
            // slashes
            /* block
               comment */ a = 1 /* inline */
            b = 2 # trailing
            """);
    assertThat(b.attributes()).extracting(Body.Attribute::name).containsExactly("a", "b");
  }

  @Test
  void parsesNumberLiteralsIncludingExponents() {
    assertThat(((Expression.Literal) expr("1.5e3")).value()).isEqualTo(new BigDecimal("1.5e3"));
    assertThat(((Expression.Literal) expr("-42")).value()).isEqualTo(new BigDecimal("-42"));
    assertThat(((Expression.Literal) expr("2E-2")).value()).isEqualTo(new BigDecimal("2E-2"));
  }

  @Test
  void decodesStringEscapes() {
    Expression.Template t = (Expression.Template) expr("\"a\\n\\t\\\"\\\\\\u00e9$${x}%%{y}\"");
    assertThat(t.isLiteral()).isTrue();
    assertThat(t.literalText()).isEqualTo("a\n\t\"\\é${x}%{y}");
  }

  @Test
  void parsesTemplateInterpolationsAndDirectives() {
    Expression.Template t =
        (Expression.Template)
            expr(
                "\"a ${var.x} %{ if c }yes%{ else }no%{ endif } %{ for i in xs }${i},%{ endfor }\"");
    assertThat(t.parts())
        .hasExactlyElementsOfTypes(
            TemplatePart.Literal.class,
            TemplatePart.Interpolation.class,
            TemplatePart.Literal.class,
            TemplatePart.If.class,
            TemplatePart.Literal.class,
            TemplatePart.For.class);
    TemplatePart.If i = (TemplatePart.If) t.parts().get(3);
    assertThat(i.thenParts()).hasSize(1);
    assertThat(i.elseParts()).hasSize(1);
  }

  @Test
  void appliesStripMarkers() {
    Expression.Template t = (Expression.Template) expr("\"a   ${~ x ~}   b\"");
    assertThat(((TemplatePart.Literal) t.parts().get(0)).text()).isEqualTo("a");
    assertThat(((TemplatePart.Literal) t.parts().get(2)).text()).isEqualTo("b");
  }

  private static String heredocText(String src) {
    Expression.Template t = (Expression.Template) expr(src);
    StringBuilder sb = new StringBuilder();
    for (TemplatePart p : t.parts()) {
      sb.append(
          p instanceof TemplatePart.Literal l
              ? l.text()
              : "<" + p.getClass().getSimpleName() + ">");
    }
    return sb.toString();
  }

  @Test
  void stripMarkerEmptiedLiteralsStayPartsSoTheTemplateIsNotASingleInterpolation() {
    Expression.Template t = (Expression.Template) expr("\" ${~1~} \"");
    assertThat(t.parts())
        .hasExactlyElementsOfTypes(
            TemplatePart.Literal.class,
            TemplatePart.Interpolation.class,
            TemplatePart.Literal.class);
    assertThat(((TemplatePart.Literal) t.parts().get(0)).text()).isEmpty();
    assertThat(((Expression.Template) expr("\"${~1~}\"")).parts()).hasSize(1);
  }

  @Test
  void heredocStripMarkerStripsOnlyTheDirectlyAdjacentLineToken() {
    // each heredoc line is its own literal: "${~" strips "  " but not the newline before it
    assertThat(heredocText("<<EOT\none\n  ${~ x} two\nEOT\n"))
        .isEqualTo("one\n<Interpolation> two\n");
    assertThat(heredocText("<<EOT\n${x ~}\n\n  two\nEOT\n")).isEqualTo("<Interpolation>\n  two\n");
  }

  @Test
  void flushHeredocAppliesStripMarkersBeforeComputingTheIndentation() {
    // "${~" empties the line's leading literal: that line then has indentation 0
    assertThat(heredocText("<<-EOT\n    one\n    ${~ x}\n    two\n  EOT\n"))
        .isEqualTo("    one\n<Interpolation>\n    two\n");
    // "~}" empties the newline after it: the next line is no longer line-leading
    assertThat(heredocText("<<-EOT\n    a\n    %{ if c ~}\n    b\n    %{ endif }\n    EOT\n"))
        .isEqualTo("a\n<If>\n");
    Expression.Template t =
        (Expression.Template)
            expr("<<-EOT\n    a\n    %{ if c ~}\n    b\n    %{ endif }\n    EOT\n");
    TemplatePart.If i = (TemplatePart.If) t.parts().get(1);
    assertThat(((TemplatePart.Literal) i.thenParts().get(0)).text()).isEqualTo("    b\n");
  }

  @Test
  void flushHeredocLineStartingWithAnInterpolationHasIndentationZero() {
    assertThat(heredocText("<<-EOT\n    a\n${x}\n    b\n    EOT\n"))
        .isEqualTo("    a\n<Interpolation>\n    b\n");
  }

  @Test
  void flushHeredocLeavesWhitespaceOnlyLinesUncountedAndUntrimmed() {
    assertThat(heredocText("<<-EOT\n    foo\n  \n\n    bar\n    EOT\n"))
        .isEqualTo("foo\n  \n\nbar\n");
    // a whitespace-only line without its newline (followed by an interpolation) does count
    assertThat(heredocText("<<-EOT\n    foo\n  ${x}\n    EOT\n"))
        .isEqualTo("  foo\n<Interpolation>\n");
  }

  @Test
  void parsesHeredocsWithInterpolationAndIndentedHeredocsDedent() {
    Body b =
        parseOk(
            """
            a = <<EOT
            hello ${name}
            EOT
            b = <<-EOT
                one
                  two
                EOT
            """);
    Expression.Template a = (Expression.Template) b.attribute("a").orElseThrow().expr();
    assertThat(a.heredoc()).isTrue();
    assertThat(a.parts()).hasSize(3);
    assertThat(((TemplatePart.Literal) a.parts().get(2)).text()).isEqualTo("\n");
    Expression.Template bt = (Expression.Template) b.attribute("b").orElseThrow().expr();
    assertThat(bt.literalText()).isEqualTo("one\n  two\n");
  }

  @Test
  void parsesTraversalsWithIndexesSplatsAndLegacyIndexes() {
    Expression.ScopeTraversal st =
        (Expression.ScopeTraversal) expr("stateful_provisioning.app[0].id");
    assertThat(st.traversal().toString()).isEqualTo("stateful_provisioning.app[0].id");
    assertThat(st.traversal().resourceAddress()).contains("stateful_provisioning.app");

    Expression.ScopeTraversal legacy = (Expression.ScopeTraversal) expr("x.0.id");
    assertThat(legacy.traversal().steps().get(1)).isEqualTo(legacy.traversal().steps().get(1));
    assertThat(legacy.traversal().toString()).isEqualTo("x[0].id");

    assertThat(((Expression.ScopeTraversal) expr("m[\"k\"]")).traversal().toString())
        .isEqualTo("m[\"k\"]");

    Expression.Splat full = (Expression.Splat) expr("r[*].id");
    assertThat(full.attributeSplat()).isFalse();
    assertThat(full.each()).hasSize(1);
    Expression.Splat attr = (Expression.Splat) expr("r.*.id");
    assertThat(attr.attributeSplat()).isTrue();

    Expression.Index dyn = (Expression.Index) expr("r[count.index]");
    assertThat(dyn.key()).isInstanceOf(Expression.ScopeTraversal.class);
    Expression.RelativeTraversal after = (Expression.RelativeTraversal) expr("r[count.index].id");
    assertThat(after.source()).isInstanceOf(Expression.Index.class);
  }

  @Test
  void parsesFunctionCallsWithExpansion() {
    Expression.FunctionCall f = (Expression.FunctionCall) expr("join(\",\", [\"a\"], xs...)");
    assertThat(f.name()).isEqualTo("join");
    assertThat(f.args()).hasSize(3);
    assertThat(f.expandFinal()).isTrue();
    Expression.FunctionCall multi = (Expression.FunctionCall) expr("f(\n  1,\n  2,\n)");
    assertThat(multi.args()).hasSize(2);
  }

  @Test
  void parsesNamespacedFunctionNames() {
    Expression.FunctionCall f =
        (Expression.FunctionCall) expr("provider::terraform::encode_tfvars({})");
    assertThat(f.name()).isEqualTo("provider::terraform::encode_tfvars");
    assertThat(f.nameRange().end().column()).isEqualTo(35);
    assertThat(f.args()).hasSize(1);
    // "::" is one token, spaces around it are allowed as in HCL
    assertThat(((Expression.FunctionCall) expr("core :: upper(\"a\")")).name())
        .isEqualTo("core::upper");
    assertThat(Parser.parseExpression("e.tf", "x::y").diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Missing open parenthesis");
    assertThat(Parser.parseExpression("e.tf", "x::(1)").diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Missing function name");
  }

  @Test
  void respectsOperatorPrecedence() {
    Expression.Binary b = (Expression.Binary) expr("1 + 2 * 3 == 7 || !false && x > 1");
    assertThat(b.op()).isEqualTo(Expression.BinaryOp.OR);
    Expression.Binary left = (Expression.Binary) b.left();
    assertThat(left.op()).isEqualTo(Expression.BinaryOp.EQ);
    assertThat(((Expression.Binary) left.left()).op()).isEqualTo(Expression.BinaryOp.ADD);
    assertThat(((Expression.Binary) b.right()).op()).isEqualTo(Expression.BinaryOp.AND);
    Expression.Conditional c = (Expression.Conditional) expr("a ? b : c ? d : e");
    assertThat(c.falseResult()).isInstanceOf(Expression.Conditional.class);
    assertThat(expr("(1 + 2) * 3")).isInstanceOf(Expression.Binary.class);
  }

  @Test
  void parsesTuplesAndObjectsWithAllKeyForms() {
    Expression.Tuple t = (Expression.Tuple) expr("[1, \"a\",\n true,]");
    assertThat(t.elements()).hasSize(3);
    Body b =
        parseOk(
            """
            o = {
              a = 1
              "b" : 2, c = 3
              (var.k) = 4
            }
            one = { x = 1, y = 2 }
            """);
    Expression.ObjectCons o = (Expression.ObjectCons) b.attribute("o").orElseThrow().expr();
    assertThat(o.items()).hasSize(4);
    assertThat(o.items().get(3).key()).isInstanceOf(Expression.Parens.class);
  }

  @Test
  void forRightAfterAnOpeningBracketOrBraceAlwaysStartsAForExpression() {
    assertThat(Parser.parseExpression("e.tf", "{ for = 1 }").diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid 'for' expression");
    assertThat(Parser.parseExpression("e.tf", "[for]").diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid 'for' expression");
    assertThat(expr("{\n  for x in xs : x => x\n}")).isInstanceOf(Expression.ForExpr.class);
    // quoted, "for" is an ordinary key
    assertThat(((Expression.ObjectCons) expr("{ \"for\" = 1 }")).items()).hasSize(1);
  }

  @Test
  void chainedLegacyIndexesAreRejected() {
    List<Diagnostic> errs = errors("a = var.legacy.0.1\n");
    assertThat(errs).extracting(Diagnostic::summary).containsExactly("Invalid legacy index syntax");
    assertThat(errs.get(0).detail()).contains("[0][1]");
    assertThat(errors("a = var.legacy[*].0.1\n"))
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid legacy index syntax");
    assertThat(((Expression.ScopeTraversal) expr("var.legacy.0.id")).traversal().toString())
        .isEqualTo("var.legacy[0].id");
  }

  @Test
  void singleLineBlockMustCloseOnItsOwnLine() {
    List<Diagnostic> errs = errors("b { x = 1\n}\nc = 2\n");
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid single-argument block definition");
    assertThat(errs.get(0).detail()).contains("closed on the same line");
    assertThat(errors("b { x = 1, y = 2 }\n"))
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid single-argument block definition");
    // an error inside the one-line block is reported once; parsing resumes after its "}"
    assertThat(errors("b { x = }\nc = 1\nd = \n"))
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid expression", "Invalid expression");
    Body ok = parseOk("b { x = 1 }\nc \"l\" {}\n");
    assertThat(ok.blocks().get(0).body().attributes()).hasSize(1);
  }

  @Test
  void multiLineBlockClosesOnItsOwnLineAfterTheLastItem() {
    assertThat(errors("d {\n  y = 2 }\n"))
        .extracting(Diagnostic::summary)
        .containsExactly("Missing newline after argument");
    assertThat(errors("d {\n  c {} }\n"))
        .extracting(Diagnostic::summary)
        .containsExactly("Missing newline after block");
  }

  @Test
  void singleLineBlockHoldsOnlyOneArgumentNotANestedBlock() {
    List<Diagnostic> errs = errors("b { c {} }\nd = 1\n");
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly("Argument definition required");
    assertThat(errs.get(0).detail()).contains("only a single argument");
    assertThat(errors("b { c \"l\" {} }\n"))
        .extracting(Diagnostic::summary)
        .containsExactly("Argument definition required");
  }

  @Test
  void parsesForExpressions() {
    Expression.ForExpr l = (Expression.ForExpr) expr("[for i, x in xs : upper(x) if i > 0]");
    assertThat(l.keyVar()).isEqualTo("i");
    assertThat(l.valueVar()).isEqualTo("x");
    assertThat(l.condition()).isNotNull();
    assertThat(l.isObject()).isFalse();
    Expression.ForExpr o = (Expression.ForExpr) expr("{for k, v in m : v => k...}");
    assertThat(o.isObject()).isTrue();
    assertThat(o.grouping()).isTrue();
  }

  @Test
  void listsReferencesWithRangesExcludingForVariables() {
    Expression e =
        expr(
            "\"${var.a}\" == local.b ? [for x in stateful_provisioning.app[*].id : x"
                + " if count.index > each.key] : [self.y, path.module]");
    assertThat(e.traversals())
        .extracting(Traversal::toString)
        .containsExactly(
            "var.a",
            "local.b",
            "stateful_provisioning.app",
            "count.index",
            "each.key",
            "self.y",
            "path.module");
    Traversal first = e.traversals().get(0);
    assertThat(first.range().start().column()).isEqualTo(4);
    assertThat(first.variableName()).contains("a");
  }

  @Test
  void acceptsOneLineBlocks() {
    Body b = parseOk("lifecycle { create_before_destroy = true }\nempty {}\n");
    assertThat(b.blocks()).hasSize(2);
    assertThat(b.blocks().get(0).body().attributes()).hasSize(1);
  }

  @Test
  void reportsMissingClosingBraceWithPosition() {
    List<Diagnostic> errs =
        errors(
            """
            resource "stateful_provisioning" "app" {
              state_key = "x"
            """);
    assertThat(errs).hasSize(1);
    assertThat(errs.get(0).summary()).isEqualTo("Unclosed configuration block");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:1:40");
  }

  @Test
  void reportsUnterminatedStringAtItsOpeningQuote() {
    List<Diagnostic> errs = errors("a = 1\nb = \"abc\nc = 2\n");
    assertThat(errs).isNotEmpty();
    assertThat(errs.get(0).summary()).isEqualTo("Unterminated template string");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:2:5");
  }

  @Test
  void reportsUnexpectedTokenAndRecoversToReportSeveralErrors() {
    ParseResult r =
        Parser.parse(
            "main.tf",
            """
            a = 1 +
            b = [1 2]
            block {
              c = )
              d = 4
            }
            e = 5
            """);
    List<Diagnostic> errs = r.diagnostics().errors();
    assertThat(errs)
        .extracting(d -> d.range().toString())
        .containsExactly("main.tf:1:8", "main.tf:2:8", "main.tf:4:7");
    assertThat(r.body().attribute("e")).isPresent();
    assertThat(r.body().blocks().get(0).body().attribute("d")).isPresent();
  }

  @Test
  void reportsInvalidEscapeAtItsColumn() {
    List<Diagnostic> errs = errors("x = \"ab\\qc\"\n");
    assertThat(errs).hasSize(1);
    assertThat(errs.get(0).summary()).isEqualTo("Invalid escape sequence");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:1:8");
  }

  @Test
  void reportsDuplicateAttributes() {
    List<Diagnostic> errs = errors("a = 1\na = 2\n");
    assertThat(errs).hasSize(1);
    assertThat(errs.get(0).detail()).contains("main.tf:1:1");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:2:1");
  }

  @Test
  void reportsUnclosedTemplateDirective() {
    List<Diagnostic> errs = errors("x = \"%{ if true }yes\"\n");
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly("Unterminated template directive");
  }

  @Test
  void reportsMissingNewlineAfterArgument() {
    List<Diagnostic> errs = errors("a = 1 b = 2\n");
    assertThat(errs.get(0).summary()).isEqualTo("Missing newline after argument");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:1:7");
  }

  @Test
  void rendersDiagnosticsLikeTerraform() {
    String text = "a = 1\nb = )\n";
    Diagnostic d = Parser.parse("main.tf", text).diagnostics().errors().get(0);
    String rendered = d.render(text);
    assertThat(rendered)
        .startsWith("Error: Invalid expression")
        .contains("on main.tf line 2 (main.tf:2:5)")
        .contains("2: b = )")
        .contains("Expected the start of an expression");
  }
}
