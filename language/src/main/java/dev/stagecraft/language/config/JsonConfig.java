package dev.stagecraft.language.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Terraform's JSON configuration syntax ({@code *.tf.json}) into the same {@link Body} AST
 * that {@link Parser#parse} produces for native syntax, so one decoder serves both. Follows <a
 * href="https://developer.hashicorp.com/terraform/language/syntax/json">the JSON syntax rules</a>:
 *
 * <ul>
 *   <li>the root is an object whose properties are block types; labels are nested object keys; a
 *       block type's (or a label's) value may be an object or an array of objects (repeated blocks,
 *       e.g. {@code provisioner} as an array of single-key objects to keep their order);
 *   <li>attribute values: strings are string templates ({@code "${var.x}"}), numbers, bools and
 *       null are literals, arrays and objects are tuple and object constructors;
 *   <li>{@code depends_on}, {@code lifecycle.ignore_changes}, {@code replace_triggered_by}, {@code
 *       removed.from}, {@code moved.from}/{@code to} and {@code variable.type} take strings that
 *       are expressions (references without {@code ${}});
 *   <li>properties named {@code "//"} in block bodies are comments and ignored.
 * </ul>
 *
 * Which properties are nested blocks is decided by the schema of the supported subset (design.md
 * §3). Every diagnostic carries {@code file:line:col}; ranges inside strings assume the string has
 * no escape sequences before the position (as precise as Terraform's own).
 */
public final class JsonConfig {

  /** How a block type's body is read. */
  private record Schema(
      int labels, Map<String, Schema> blocks, Map<String, Mode> special, boolean looseBlocks) {}

  /** How an attribute's JSON value becomes an expression. */
  private enum Mode {
    /** A string is an expression (e.g. {@code "list(string)"}). */
    EXPRESSION,
    /** An array of strings, each an expression ({@code ["stateful_provisioning.a"]}). */
    EXPRESSION_LIST
  }

  private static final Schema CONNECTION = new Schema(0, Map.of(), Map.of(), false);
  private static final Schema CONDITION = new Schema(0, Map.of(), Map.of(), false);
  private static final Schema PROVISIONER =
      new Schema(1, Map.of("connection", CONNECTION), Map.of(), false);
  private static final Schema LIFECYCLE =
      new Schema(
          0,
          Map.of("precondition", CONDITION, "postcondition", CONDITION),
          Map.of(
              "ignore_changes", Mode.EXPRESSION_LIST, "replace_triggered_by", Mode.EXPRESSION_LIST),
          false);

  private static final Map<String, Schema> TOP =
      Map.of(
          "variable",
          new Schema(1, Map.of("validation", CONDITION), Map.of("type", Mode.EXPRESSION), false),
          "locals",
          new Schema(0, Map.of(), Map.of(), false),
          "output",
          new Schema(
              1,
              Map.of("precondition", CONDITION),
              Map.of("depends_on", Mode.EXPRESSION_LIST),
              false),
          "resource",
          new Schema(
              2,
              Map.of("provisioner", PROVISIONER, "connection", CONNECTION, "lifecycle", LIFECYCLE),
              Map.of("depends_on", Mode.EXPRESSION_LIST),
              false),
          "removed",
          new Schema(
              0,
              Map.of("lifecycle", LIFECYCLE, "provisioner", PROVISIONER, "connection", CONNECTION),
              Map.of("from", Mode.EXPRESSION),
              false),
          "moved",
          new Schema(0, Map.of(), Map.of("from", Mode.EXPRESSION, "to", Mode.EXPRESSION), false),
          "module",
          new Schema(1, Map.of(), Map.of("depends_on", Mode.EXPRESSION_LIST), false),
          "check",
          new Schema(
              1,
              Map.of("assert", CONDITION, "data", new Schema(2, Map.of(), Map.of(), true)),
              Map.of(),
              false),
          "terraform",
          new Schema(0, Map.of(), Map.of(), true),
          "data",
          new Schema(2, Map.of(), Map.of(), false));

  /** Unknown block types: no labels known; the decoder reports them. */
  private static final Schema UNKNOWN = new Schema(0, Map.of(), Map.of(), true);

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build())
          .build();

  private JsonConfig() {}

  /**
   * Parses a {@code *.tf.json} file into a body of blocks. Never throws; problems are diagnostics.
   */
  public static ParseResult parse(String file, String text) {
    Diagnostics d = new Diagnostics();
    SourceRange start = new SourceRange(file, SourcePos.START, SourcePos.START);
    JValue root;
    try {
      root = new Reader(file, text == null ? "" : text).read();
    } catch (JsonSyntaxError e) {
      d.error("Invalid JSON", e.getMessage() + ".", e.range);
      return new ParseResult(new Body(List.of(), start), d);
    } catch (RuntimeException e) {
      d.error(
          "Invalid JSON", "The file could not be read as JSON (" + e.getMessage() + ").", start);
      return new ParseResult(new Body(List.of(), start), d);
    }
    if (!(root instanceof JObject o)) {
      d.error(
          "Invalid JSON configuration",
          "The root of a *.tf.json file must be a JSON object whose properties are block types,"
              + " e.g. {\"resource\": {...}}.",
          root.range());
      return new ParseResult(new Body(List.of(), start), d);
    }
    try {
      List<Body.BodyItem> items = new ArrayList<>();
      for (JProp p : o.props()) {
        if (p.key().equals("//")) {
          continue;
        }
        Schema s = TOP.getOrDefault(p.key(), UNKNOWN);
        blocks(
            file,
            p.key(),
            p.keyRange(),
            s,
            p.value(),
            new ArrayList<>(),
            new ArrayList<>(),
            items,
            d);
      }
      return new ParseResult(new Body(items, o.range()), d);
    } catch (RuntimeException | StackOverflowError e) {
      d.error(
          "Internal parser error",
          "The JSON configuration reader failed unexpectedly (" + e + "). This is a bug.",
          start);
      return new ParseResult(new Body(List.of(), start), d);
    }
  }

  // ------------------------------------------------------------------ blocks

  private static void blocks(
      String file,
      String type,
      SourceRange typeRange,
      Schema s,
      JValue v,
      List<String> labels,
      List<SourceRange> labelRanges,
      List<Body.BodyItem> out,
      Diagnostics d) {
    if (v instanceof JArray a) {
      for (JValue e : a.items()) {
        blocks(file, type, typeRange, s, e, labels, labelRanges, out, d);
      }
      return;
    }
    if (!(v instanceof JObject o)) {
      d.error(
          "Invalid " + type + " block",
          "The value of a \""
              + type
              + "\" block in JSON syntax must be an object"
              + (labels.size() < s.labels() ? " whose property names are the block's labels" : "")
              + " (or an array of such objects), but found "
              + v.describe()
              + ".",
          v.range());
      return;
    }
    if (labels.size() < s.labels()) {
      for (JProp p : o.props()) {
        List<String> l = new ArrayList<>(labels);
        l.add(p.key());
        List<SourceRange> lr = new ArrayList<>(labelRanges);
        lr.add(p.keyRange());
        blocks(file, type, typeRange, s, p.value(), l, lr, out, d);
      }
      if (o.props().isEmpty()) {
        d.error(
            "Missing label for " + type,
            "A \""
                + type
                + "\" block needs "
                + s.labels()
                + " label(s), given as nested object"
                + " property names, e.g. {\""
                + type
                + "\": {\"name\": {...}}}.",
            o.range());
      }
      return;
    }
    // Diagnostics about a whole block point at its type keyword in native syntax; in JSON the type
    // property may be far away (one "resource" property holds every resource), so a labelled
    // block points at its innermost label instead.
    SourceRange at = labelRanges.isEmpty() ? typeRange : labelRanges.getLast();
    out.add(new Body.Block(type, labels, labelRanges, body(file, s, o, d), at, at.to(o.range())));
  }

  private static Body body(String file, Schema s, JObject o, Diagnostics d) {
    List<Body.BodyItem> items = new ArrayList<>();
    Map<String, SourceRange> seen = new HashMap<>();
    for (JProp p : o.props()) {
      if (p.key().equals("//")) {
        continue;
      }
      Schema nested = s.blocks().get(p.key());
      if (nested == null && s.looseBlocks() && p.value() instanceof JObject) {
        nested = UNKNOWN;
      }
      if (nested != null) {
        blocks(
            file,
            p.key(),
            p.keyRange(),
            nested,
            p.value(),
            new ArrayList<>(),
            new ArrayList<>(),
            items,
            d);
        continue;
      }
      SourceRange prev = seen.putIfAbsent(p.key(), p.keyRange());
      if (prev != null) {
        d.error(
            "Duplicate argument",
            "The argument \""
                + p.key()
                + "\" was already set at "
                + prev
                + ". Each argument may"
                + " be set only once.",
            p.keyRange());
        continue;
      }
      Mode mode = s.special().get(p.key());
      Expression e =
          mode == null
              ? expression(file, p.value(), d)
              : mode == Mode.EXPRESSION
                  ? stringExpression(file, p.key(), p.value(), d)
                  : expressionList(file, p.key(), p.value(), d);
      items.add(new Body.Attribute(p.key(), e, p.keyRange(), p.keyRange().to(p.value().range())));
    }
    return new Body(items, o.range());
  }

  // ------------------------------------------------------------------ expressions

  /** JSON value → expression in Terraform's JSON "expression mode". */
  static Expression expression(String file, JValue v, Diagnostics d) {
    return switch (v) {
      case JString s -> template(file, s.value(), s.range(), d);
      case JNumber n -> new Expression.Literal(n.value(), n.range());
      case JBool b -> new Expression.Literal(b.value(), b.range());
      case JNull n -> new Expression.Literal(null, n.range());
      case JArray a ->
          new Expression.Tuple(
              a.items().stream().map(x -> expression(file, x, d)).toList(), a.range());
      case JObject o -> {
        List<Expression.ObjectItem> items = new ArrayList<>();
        for (JProp p : o.props()) {
          Expression key =
              p.key().contains("${") || p.key().contains("%{")
                  ? template(file, p.key(), p.keyRange(), d)
                  : new Expression.Literal(p.key(), p.keyRange());
          items.add(new Expression.ObjectItem(key, expression(file, p.value(), d)));
        }
        yield new Expression.ObjectCons(items, o.range());
      }
    };
  }

  private static Expression template(String file, String text, SourceRange r, Diagnostics d) {
    ExpressionResult er = Parser.parseTemplate(file, text, inside(r));
    d.addAll(er.diagnostics());
    if (er.expression() instanceof Expression.Template t) {
      return new Expression.Template(t.parts(), false, r); // the range includes the quotes
    }
    return new Expression.Literal(text, r);
  }

  /** Where the text of a JSON string starts: one column after the opening quote. */
  private static SourcePos inside(SourceRange r) {
    SourcePos s = r.start();
    return new SourcePos(s.line(), s.column() + 1, s.offset() + 1);
  }

  private static Expression stringExpression(String file, String name, JValue v, Diagnostics d) {
    if (!(v instanceof JString s)) {
      d.error(
          "Invalid " + name,
          "In JSON syntax the value of \""
              + name
              + "\" must be a string containing an expression, e.g. \"list(string)\"; found "
              + v.describe()
              + ".",
          v.range());
      return expression(file, v, d);
    }
    String text = s.value().strip();
    if (text.startsWith("${") && text.endsWith("}") && text.indexOf("${", 2) < 0) {
      text = text.substring(2, text.length() - 1);
      ExpressionResult er =
          Parser.parseExpression(file, text, shift(inside(s.range()), s.value().indexOf("${") + 2));
      d.addAll(er.diagnostics());
      return er.expression() != null
          ? er.expression()
          : new Expression.Literal(s.value(), s.range());
    }
    ExpressionResult er = Parser.parseExpression(file, s.value(), inside(s.range()));
    d.addAll(er.diagnostics());
    return er.expression() != null ? er.expression() : new Expression.Literal(s.value(), s.range());
  }

  private static SourcePos shift(SourcePos p, int n) {
    return new SourcePos(p.line(), p.column() + n, p.offset() + n);
  }

  private static Expression expressionList(String file, String name, JValue v, Diagnostics d) {
    if (v instanceof JString) {
      return stringExpression(file, name, v, d); // e.g. "ignore_changes": "all"
    }
    if (!(v instanceof JArray a)) {
      d.error(
          "Invalid " + name,
          "In JSON syntax \""
              + name
              + "\" must be an array of strings, each a reference without ${}, e.g. [\"stateful_provisioning.app\"];"
              + " found "
              + v.describe()
              + ".",
          v.range());
      return expression(file, v, d);
    }
    List<Expression> out = new ArrayList<>();
    for (JValue e : a.items()) {
      out.add(stringExpression(file, name, e, d));
    }
    return new Expression.Tuple(out, a.range());
  }

  // ------------------------------------------------------------------ a JSON tree with positions

  sealed interface JValue permits JObject, JArray, JString, JNumber, JBool, JNull {
    SourceRange range();

    default String describe() {
      return switch (this) {
        case JObject o -> "an object";
        case JArray a -> "an array";
        case JString s -> "a string";
        case JNumber n -> "a number";
        case JBool b -> "a bool";
        case JNull n -> "null";
      };
    }
  }

  record JProp(String key, SourceRange keyRange, JValue value) {}

  record JObject(List<JProp> props, SourceRange range) implements JValue {}

  record JArray(List<JValue> items, SourceRange range) implements JValue {}

  record JString(String value, SourceRange range) implements JValue {}

  record JNumber(BigDecimal value, SourceRange range) implements JValue {}

  record JBool(boolean value, SourceRange range) implements JValue {}

  record JNull(SourceRange range) implements JValue {}

  private static final class JsonSyntaxError extends RuntimeException {
    final SourceRange range;

    JsonSyntaxError(String message, SourceRange range) {
      super(message, null, false, false);
      this.range = range;
    }
  }

  /** Streams a JSON document into a {@link JValue} tree, keeping duplicate keys and positions. */
  private static final class Reader {
    private final String file;
    private final String text;
    private JsonParser p;

    Reader(String file, String text) {
      this.file = file;
      this.text = text;
    }

    JValue read() {
      try (JsonParser parser = FACTORY.createParser(text)) {
        p = parser;
        JsonToken t = p.nextToken();
        if (t == null) {
          throw new JsonSyntaxError(
              "The file is empty; a *.tf.json file must contain a JSON object",
              new SourceRange(file, SourcePos.START, SourcePos.START));
        }
        JValue v = value(t);
        if (p.nextToken() != null) {
          throw new JsonSyntaxError(
              "Extra data after the end of the JSON value", range(p.currentTokenLocation()));
        }
        return v;
      } catch (JsonParseException e) {
        String msg = e.getOriginalMessage();
        throw new JsonSyntaxError(
            msg == null ? "malformed JSON" : msg.lines().findFirst().orElse(msg),
            range(e.getLocation()));
      } catch (IOException e) {
        throw new JsonSyntaxError(
            "cannot read: " + e.getMessage(),
            new SourceRange(file, SourcePos.START, SourcePos.START));
      }
    }

    private SourcePos pos(JsonLocation l) {
      if (l == null) {
        return SourcePos.START;
      }
      return new SourcePos(
          Math.max(1, l.getLineNr()),
          Math.max(1, l.getColumnNr()),
          (int) Math.max(0, l.getCharOffset()));
    }

    private SourceRange range(JsonLocation l) {
      SourcePos s = pos(l);
      return new SourceRange(file, s, s);
    }

    private SourceRange tokenRange() {
      return new SourceRange(file, pos(p.currentTokenLocation()), pos(p.currentLocation()));
    }

    private JValue value(JsonToken t) throws IOException {
      return switch (t) {
        case START_OBJECT -> {
          SourcePos start = pos(p.currentTokenLocation());
          List<JProp> props = new ArrayList<>();
          JsonToken n;
          while ((n = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            SourceRange kr = tokenRange();
            JValue v = value(p.nextToken());
            props.add(new JProp(key, kr, v));
          }
          yield new JObject(props, new SourceRange(file, start, pos(p.currentLocation())));
        }
        case START_ARRAY -> {
          SourcePos start = pos(p.currentTokenLocation());
          List<JValue> items = new ArrayList<>();
          JsonToken n;
          while ((n = p.nextToken()) != JsonToken.END_ARRAY && n != null) {
            items.add(value(n));
          }
          yield new JArray(items, new SourceRange(file, start, pos(p.currentLocation())));
        }
        case VALUE_STRING -> new JString(p.getText(), tokenRange());
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new JNumber(p.getDecimalValue(), tokenRange());
        case VALUE_TRUE -> new JBool(true, tokenRange());
        case VALUE_FALSE -> new JBool(false, tokenRange());
        case VALUE_NULL -> new JNull(tokenRange());
        default -> throw new JsonSyntaxError("Unexpected " + t.asString(), tokenRange());
      };
    }
  }
}
