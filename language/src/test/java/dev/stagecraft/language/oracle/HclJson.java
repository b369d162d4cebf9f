package dev.stagecraft.language.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.TemplatePart;
import java.math.BigDecimal;
import java.util.List;

/**
 * Renders OUR parse tree in the JSON shape HashiCorp's {@code hcl2json} (the cdktf fork of
 * tmccombs/hcl2json, {@code Simplify=false}) produces, so that the two parsers can be compared:
 *
 * <ul>
 *   <li>a block becomes {@code {"type": {"label1": {"label2": [ body, body... ]}}}}: same-type
 *       blocks with the same labels are an array in source order; attributes are keys;
 *   <li>literals (numbers, bools, null, and unary minus/not applied to a literal) are JSON values;
 *       tuples and objects are arrays and objects of converted elements;
 *   <li>a string template is its text with literal parts escaped ({@code ${} → {@code $${}, {@code
 *       %{} → {@code %%{}), interpolations as {@code ${SOURCE}} (SOURCE is the exact source text
 *       of the inner expression), directives rebuilt as {@code %{if COND}..%{else}..%{endif}} and
 *       {@code %{for K, V in COLL}..%{endfor}}; a template that is exactly one interpolation is
 *       the conversion of the inner expression;
 *   <li>every other expression is {@code "${" + its exact source text + "}"} (plus hcl2json's quirk:
 *       a {@code )} right after the range is included).
 * </ul>
 *
 * The expression text comes from OUR source ranges, so a range that differs from HCL's shows up.
 */
final class HclJson {
  /** Two blocks nest differently ({@code a "x" {}} and {@code a "x" "y" {}}): hcl2json fails. */
  static final class Conflict extends RuntimeException {
    Conflict(String message) {
      super(message);
    }
  }

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private final String text;

  private HclJson(String text) {
    this.text = text;
  }

  /** The hcl2json form of a parsed file whose source is {@code text}. */
  static ObjectNode convert(Body body, String text) {
    return new HclJson(text).body(body);
  }

  private ObjectNode body(Body body) {
    ObjectNode out = F.objectNode();
    for (Body.Block b : body.blocks()) {
      block(b, out);
    }
    for (Body.Attribute a : body.attributes()) {
      out.set(a.name(), expr(a.expr()));
    }
    return out;
  }

  private void block(Body.Block b, ObjectNode root) {
    ObjectNode out = root;
    String key = b.type();
    for (String label : b.labels()) {
      JsonNode existing = out.get(key);
      if (existing == null) {
        ObjectNode next = F.objectNode();
        out.set(key, next);
        out = next;
      } else if (existing instanceof ObjectNode o) {
        out = o;
      } else {
        throw new Conflict(
            "Unable to convert Block to JSON: " + b.type() + "." + String.join(".", b.labels()));
      }
      key = label;
    }
    ObjectNode value = body(b.body());
    JsonNode current = out.get(key);
    if (current instanceof ArrayNode arr) {
      arr.add(value);
    } else if (current == null) {
      out.set(key, F.arrayNode().add(value));
    } else {
      throw new Conflict(
          "Unable to convert Block to JSON: " + b.type() + "." + String.join(".", b.labels()));
    }
  }

  private JsonNode expr(Expression e) {
    return switch (e) {
      // our parser folds "- -1" into a literal; HCL keeps nested unary expressions (wrapped)
      case Expression.Literal l when isFoldedNestedNegation(l) -> F.textNode(wrap(e));
      case Expression.Literal l -> literal(l.value());
      case Expression.Unary u when u.operand() instanceof Expression.Literal l ->
          unaryOfLiteral(u, l);
      case Expression.Template t -> {
        if (t.parts().size() == 1 && t.parts().get(0) instanceof TemplatePart.Interpolation i) {
          yield expr(i.expr());
        }
        yield F.textNode(parts(t.parts()));
      }
      case Expression.Tuple t -> {
        ArrayNode arr = F.arrayNode();
        t.elements().forEach(x -> arr.add(expr(x)));
        yield arr;
      }
      case Expression.ObjectCons o -> {
        ObjectNode obj = F.objectNode();
        for (Expression.ObjectItem item : o.items()) {
          obj.set(key(item.key()), expr(item.value()));
        }
        yield obj;
      }
      default -> F.textNode(wrap(e));
    };
  }

  private boolean isFoldedNestedNegation(Expression.Literal l) {
    String src = source(l.range());
    return src.startsWith("-") && src.substring(1).stripLeading().startsWith("-");
  }

  private JsonNode unaryOfLiteral(Expression.Unary u, Expression.Literal l) {
    if (u.op() == Expression.UnaryOp.NOT && l.value() instanceof Boolean b) {
      return F.booleanNode(!b);
    }
    if (u.op() == Expression.UnaryOp.NEGATE && l.value() instanceof BigDecimal n) {
      return F.numberNode(n.negate());
    }
    throw new Conflict("Invalid operand for unary " + u.op().symbol + ": " + source(u.range()));
  }

  private static JsonNode literal(Object v) {
    return switch (v) {
      case null -> F.nullNode();
      case BigDecimal n -> F.numberNode(n);
      case Boolean b -> F.booleanNode(b);
      case String s -> F.textNode(s);
      default -> throw new IllegalStateException("literal " + v.getClass());
    };
  }

  private String key(Expression k) {
    return switch (k) {
      case Expression.Literal l when l.value() instanceof String s -> s;
      case Expression.ScopeTraversal t -> source(t.range());
      default -> stringPart(k);
    };
  }

  /** hcl2json's convertStringPart for an expression inside a template (or an object key). */
  private String stringPart(Expression e) {
    return switch (e) {
      // our parser folds "-1" into a literal; HCL keeps a unary expression, which is wrapped
      case Expression.Literal l when source(l.range()).startsWith("-") -> wrap(e);
      case Expression.Literal l -> literalAsString(l.value());
      case Expression.Template t -> parts(t.parts());
      case Expression.Conditional c ->
          directiveIf(
              source(c.condition().range()),
              stringPart(c.trueResult()),
              stringPart(c.falseResult()));
      default -> wrap(e);
    };
  }

  private static String literalAsString(Object v) {
    return switch (v) {
      case null -> "";
      case BigDecimal n -> n.stripTrailingZeros().toPlainString();
      default -> String.valueOf(v);
    };
  }

  private String parts(List<TemplatePart> parts) {
    StringBuilder sb = new StringBuilder();
    for (TemplatePart p : parts) {
      switch (p) {
        case TemplatePart.Literal l -> sb.append(escape(l.text()));
        case TemplatePart.Interpolation i -> sb.append(stringPart(i.expr()));
        case TemplatePart.If i ->
            sb.append(
                directiveIf(
                    source(i.condition().range()), parts(i.thenParts()), parts(i.elseParts())));
        case TemplatePart.For f -> {
          sb.append("%{for ");
          if (f.keyVar() != null) {
            sb.append(f.keyVar()).append(", ");
          }
          sb.append(f.valueVar()).append(" in ").append(source(f.collection().range())).append('}');
          sb.append(parts(f.body())).append("%{endfor}");
        }
      }
    }
    return sb.toString();
  }

  private static String directiveIf(String cond, String then, String otherwise) {
    return "%{if "
        + cond
        + "}"
        + then
        + (otherwise.isEmpty() ? "" : "%{else}" + otherwise)
        + "%{endif}";
  }

  /** The cdktf fork re-escapes template sequences in literal text. */
  private static String escape(String s) {
    return s.replace("${", "$${").replace("%{", "%%{");
  }

  private String wrap(Expression e) {
    return "${" + source(e.range()) + "}";
  }

  /** hcl2json's rangeSource: the source slice, plus a directly following ")". */
  private String source(SourceRange r) {
    int start = Math.max(0, Math.min(r.start().offset(), text.length()));
    int end = Math.max(start, Math.min(r.end().offset(), text.length()));
    if (end < text.length() && text.charAt(end) == ')') {
      end++;
    }
    return text.substring(start, end);
  }
}
