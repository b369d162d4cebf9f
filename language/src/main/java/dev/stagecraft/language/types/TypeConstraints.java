package dev.stagecraft.language.types;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.Conversions;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.Expression;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Parses type constraint expressions and converts values to types the way Terraform does for input
 * variables: {@code "5"} becomes a number for {@code number}, numbers and bools become strings for
 * {@code string}, a list becomes a deduplicated set for {@code set(T)}, object attributes missing
 * from the value take their {@code optional(T, default)} defaults, and extra attributes are
 * dropped. Stateless and thread-safe.
 */
public final class TypeConstraints {
  private TypeConstraints() {}

  /** The outcome of {@link #parse}: {@code type} is {@link Type#ANY} when there are errors. */
  public record Parsed(Type type, Diagnostics diagnostics) {}

  /**
   * The outcome of {@link #convert}: the converted value, or an error message (a sentence fragment
   * naming the offending path, e.g. {@code attribute "port": a number is required}).
   */
  public record Conversion(Value value, Optional<String> error) {
    public boolean ok() {
      return error.isEmpty();
    }
  }

  // ------------------------------------------------------------------ parsing

  /**
   * Parses a type constraint expression ({@code list(object({ a = string }))}). A bare {@code list}
   * or {@code map} as the whole constraint is Terraform 0.11's shorthand, which Terraform still
   * accepts as {@code list(any)} and {@code map(any)}; nested, the element type is required.
   */
  public static Parsed parse(Expression e) {
    if (e instanceof Expression.ScopeTraversal st && st.traversal().steps().isEmpty()) {
      switch (st.traversal().root()) {
        case "list" -> {
          return new Parsed(new Type.ListOf(Type.ANY), new Diagnostics());
        }
        case "map" -> {
          return new Parsed(new Type.MapOf(Type.ANY), new Diagnostics());
        }
        default -> {}
      }
    }
    Diagnostics d = new Diagnostics();
    Type t = parse(e, d, false);
    return new Parsed(d.hasErrors() ? Type.ANY : t, d);
  }

  private static Type fail(Diagnostics d, Expression e, String detail) {
    d.error("Invalid type specification", detail, e.range());
    return Type.ANY;
  }

  private static final String KEYWORDS =
      "string, number, bool, any, list(T), set(T), map(T), object({name = T, ...}) or tuple([T,"
          + " ...])";

  private static Type parse(Expression e, Diagnostics d, boolean attributePosition) {
    switch (e) {
      case Expression.Parens p -> {
        return parse(p.inner(), d, attributePosition);
      }
      case Expression.ScopeTraversal st when st.traversal().steps().isEmpty() -> {
        return switch (st.traversal().root()) {
          case "string" -> Type.STRING;
          case "number" -> Type.NUMBER;
          case "bool" -> Type.BOOL;
          case "any" -> Type.ANY;
          case "list", "set", "map", "object", "tuple" ->
              fail(
                  d,
                  e,
                  "The "
                      + st.traversal().root()
                      + " type constructor requires one argument specifying the element type, e.g. "
                      + st.traversal().root()
                      + (st.traversal().root().equals("object")
                          ? "({ name = string })"
                          : st.traversal().root().equals("tuple")
                              ? "([string, number])"
                              : "(string)")
                      + ".");
          default ->
              fail(
                  d,
                  e,
                  "The keyword \""
                      + st.traversal().root()
                      + "\" is not a valid type specification. Use "
                      + KEYWORDS
                      + ".");
        };
      }
      case Expression.Template t when t.isLiteral() -> {
        return fail(
            d,
            e,
            "Type constraints are keywords, not strings: write type = "
                + t.literalText()
                + (List.of("list", "map", "set").contains(t.literalText()) ? "(string)" : "")
                + " without quotes (quoted types are a Terraform 0.11 form).");
      }
      case Expression.FunctionCall fc -> {
        return call(fc, d, attributePosition);
      }
      default -> {
        return fail(d, e, "A type specification is one of " + KEYWORDS + ".");
      }
    }
  }

  private static Type call(Expression.FunctionCall fc, Diagnostics d, boolean attributePosition) {
    String name = fc.name();
    List<Expression> args = fc.args();
    switch (name) {
      case "list", "set", "map" -> {
        if (args.size() != 1) {
          return fail(
              d,
              fc,
              "The "
                  + name
                  + " type constructor requires exactly one argument (the element type).");
        }
        Type el = parse(args.get(0), d, false);
        return name.equals("list")
            ? new Type.ListOf(el)
            : name.equals("set") ? new Type.SetOf(el) : new Type.MapOf(el);
      }
      case "object" -> {
        if (args.size() != 1 || !(args.get(0) instanceof Expression.ObjectCons oc)) {
          return fail(
              d,
              fc,
              "The object type constructor requires one argument specifying the attribute types as"
                  + " an object, e.g. object({ name = string, port = optional(number, 22) }).");
        }
        Map<String, Type.Attribute> attrs = new LinkedHashMap<>();
        for (Expression.ObjectItem item : oc.items()) {
          Optional<String> key = keyName(item.key());
          if (key.isEmpty()) {
            fail(
                d, item.key(), "Object type attribute names must be plain identifiers or strings.");
            continue;
          }
          if (attrs.containsKey(key.get())) {
            fail(d, item.key(), "Duplicate attribute \"" + key.get() + "\" in the object type.");
            continue;
          }
          attrs.put(key.get(), attribute(item.value(), d));
        }
        return new Type.ObjectOf(attrs);
      }
      case "tuple" -> {
        if (args.size() != 1 || !(args.get(0) instanceof Expression.Tuple t)) {
          return fail(
              d,
              fc,
              "The tuple type constructor requires one argument specifying the element types as a"
                  + " list, e.g. tuple([string, number]).");
        }
        List<Type> els = new ArrayList<>();
        for (Expression x : t.elements()) {
          els.add(parse(x, d, false));
        }
        return new Type.TupleOf(els);
      }
      case "optional" -> {
        return fail(
            d,
            fc,
            "optional(...) may only be used for an attribute of an object type, e.g. object({ port"
                + " = optional(number, 22) }).");
      }
      default -> {
        return fail(d, fc, "\"" + name + "\" is not a type constructor. Use " + KEYWORDS + ".");
      }
    }
  }

  private static Type.Attribute attribute(Expression e, Diagnostics d) {
    if (!(e instanceof Expression.FunctionCall fc) || !fc.name().equals("optional")) {
      return new Type.Attribute(parse(e, d, true), false, Optional.empty());
    }
    if (fc.args().isEmpty() || fc.args().size() > 2) {
      fail(
          d,
          fc,
          "optional(...) takes the attribute type and optionally a default value, e.g. optional(number,"
              + " 22).");
      return new Type.Attribute(Type.ANY, true, Optional.empty());
    }
    Type t = parse(fc.args().get(0), d, true);
    Optional<Value> dflt = Optional.empty();
    if (fc.args().size() == 2) {
      Expression de = fc.args().get(1);
      if (!de.traversals().isEmpty()) {
        fail(d, de, "The default value of an optional attribute may not refer to other values.");
      } else {
        EvalResult r = new Evaluator().evaluate(de, SimpleEvalContext.empty());
        d.addAll(r.diagnostics());
        if (!r.hasErrors()) {
          Conversion c = convert(r.value(), t);
          if (c.ok()) {
            dflt = Optional.of(c.value());
          } else {
            fail(
                d,
                de,
                "Invalid default value for the optional attribute: " + c.error().get() + ".");
          }
        }
      }
    }
    return new Type.Attribute(t, true, dflt);
  }

  private static Optional<String> keyName(Expression k) {
    if (k instanceof Expression.Literal l && l.value() instanceof String s) {
      return Optional.of(s);
    }
    if (k instanceof Expression.Template t && t.isLiteral()) {
      return Optional.of(t.literalText());
    }
    if (k instanceof Expression.ScopeTraversal st && st.traversal().steps().isEmpty()) {
      return Optional.of(st.traversal().root());
    }
    if (k instanceof Expression.Parens p) {
      return keyName(p.inner());
    }
    return Optional.empty();
  }

  // ------------------------------------------------------------------ conversion

  /** Converts {@code v} to {@code t}; null and unknown values convert to themselves. */
  public static Conversion convert(Value v, Type t) {
    try {
      return new Conversion(conv(v, t, ""), Optional.empty());
    } catch (ConversionError e) {
      return new Conversion(v, Optional.of(e.getMessage()));
    }
  }

  private static final class ConversionError extends RuntimeException {
    ConversionError(String path, String message) {
      super((path.isEmpty() ? "" : path + ": ") + message, null, false, false);
    }
  }

  private static String describe(Value v) {
    return switch (v) {
      case Value.StringValue s -> v.isSensitive() ? "a string" : "the string \"" + s.value() + "\"";
      case Value.NumberValue n -> "a number";
      case Value.BoolValue b -> "a bool";
      case Value.ListValue l -> "a list";
      case Value.ObjectValue o -> "an object";
      default -> v.typeName();
    };
  }

  private static Value conv(Value v, Type t, String path) {
    if (v.isNull() || !v.isKnown() || t instanceof Type.Any) {
      return v;
    }
    Value out =
        switch (t) {
          case Type.Any a -> v;
          case Type.Primitive p -> primitive(v, p, path);
          case Type.ListOf l -> Value.list(elements(v, l.element(), path, "list"));
          case Type.SetOf s -> Value.list(setOrder(elements(v, s.element(), path, "set")));
          case Type.MapOf m -> {
            if (!(v instanceof Value.ObjectValue o)) {
              throw new ConversionError(
                  path, "a map of " + m.element() + " is required, but got " + describe(v));
            }
            Map<String, Value> out2 = new TreeMap<>();
            o.attributes().forEach((k, x) -> out2.put(k, conv(x, m.element(), sub(path, k))));
            yield Value.object(out2);
          }
          case Type.ObjectOf ot -> {
            if (!(v instanceof Value.ObjectValue o)) {
              throw new ConversionError(path, "an object is required, but got " + describe(v));
            }
            Map<String, Value> out2 = new TreeMap<>();
            for (Map.Entry<String, Type.Attribute> e : ot.attributes().entrySet()) {
              Type.Attribute a = e.getValue();
              Value x = o.attributes().get(e.getKey());
              if (x == null || x.isNull()) {
                if (x == null && !a.optional()) {
                  throw new ConversionError(path, "attribute \"" + e.getKey() + "\" is required");
                }
                out2.put(e.getKey(), a.defaultValue().orElse(x == null ? Value.NULL : x));
                continue;
              }
              out2.put(e.getKey(), conv(x, a.type(), sub(path, e.getKey())));
            }
            yield Value.object(out2);
          }
          case Type.TupleOf tt -> {
            if (!(v instanceof Value.ListValue l)) {
              throw new ConversionError(path, "a tuple is required, but got " + describe(v));
            }
            if (l.elements().size() != tt.elements().size()) {
              throw new ConversionError(
                  path,
                  "a tuple of "
                      + tt.elements().size()
                      + " elements is required, but got "
                      + l.elements().size());
            }
            List<Value> out2 = new ArrayList<>();
            for (int i = 0; i < l.elements().size(); i++) {
              out2.add(conv(l.elements().get(i), tt.elements().get(i), path + "[" + i + "]"));
            }
            yield Value.list(out2);
          }
        };
    return out.markLike(v);
  }

  private static String sub(String path, String key) {
    return path.isEmpty() ? "attribute \"" + key + "\"" : path + "[\"" + key + "\"]";
  }

  private static List<Value> elements(Value v, Type el, String path, String what) {
    if (!(v instanceof Value.ListValue l)) {
      throw new ConversionError(
          path, "a " + what + " of " + el + " is required, but got " + describe(v));
    }
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < l.elements().size(); i++) {
      out.add(conv(l.elements().get(i), el, (path.isEmpty() ? "element " : path) + "[" + i + "]"));
    }
    return out;
  }

  private static List<Value> setOrder(List<Value> in) {
    List<Value> out = new ArrayList<>();
    for (Value v : in) {
      if (out.stream().noneMatch(x -> Conversions.valuesEqual(x, v))) {
        out.add(v);
      }
    }
    if (out.stream().allMatch(v -> v instanceof Value.StringValue)) {
      out.sort(
          (x, y) -> ((Value.StringValue) x).value().compareTo(((Value.StringValue) y).value()));
    } else if (out.stream().allMatch(v -> v instanceof Value.NumberValue)) {
      out.sort(
          (x, y) -> ((Value.NumberValue) x).value().compareTo(((Value.NumberValue) y).value()));
    }
    return out;
  }

  private static Value primitive(Value v, Type.Primitive p, String path) {
    Value u = v.unmark();
    switch (p.name()) {
      case "string" -> {
        Optional<String> s = Conversions.toStr(u);
        if (s.isPresent()) {
          return Value.string(s.get());
        }
        throw new ConversionError(path, "a string is required, but got " + describe(v));
      }
      case "number" -> {
        Optional<BigDecimal> n = Conversions.toNumber(u);
        if (n.isPresent()) {
          return Value.number(n.get());
        }
        throw new ConversionError(path, "a number is required, but got " + describe(v));
      }
      default -> {
        Optional<Boolean> b = Conversions.toBool(u);
        if (b.isPresent()) {
          return Value.bool(b.get());
        }
        throw new ConversionError(path, "a bool is required, but got " + describe(v));
      }
    }
  }
}
