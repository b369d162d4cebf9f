package dev.stagecraft.language.eval.functions;

import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Json;
import dev.stagecraft.language.eval.Value;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * {@code yamlencode} (an emitter written to match Terraform's output byte for byte: block style,
 * two-space indentation, double-quoted strings) and {@code yamldecode} (SnakeYAML, safe
 * constructor, timestamps kept as strings).
 */
final class Yaml {
  private Yaml() {}

  // ------------------------------------------------------------------ encode

  static String encode(Value v) {
    StringBuilder sb = new StringBuilder();
    if (isBlock(v)) {
      block(v, 0, sb);
    } else {
      sb.append(scalar(v)).append('\n');
    }
    return sb.toString();
  }

  private static boolean isBlock(Value v) {
    return (v instanceof Value.ListValue l && !l.elements().isEmpty())
        || (v instanceof Value.ObjectValue o && !o.attributes().isEmpty());
  }

  /** Writes a non-empty collection starting at the current position, at {@code indent}. */
  private static void block(Value v, int indent, StringBuilder sb) {
    String pad = " ".repeat(indent);
    boolean first = true;
    if (v instanceof Value.ListValue l) {
      for (Value e : l.elements()) {
        if (!first) {
          sb.append(pad);
        }
        first = false;
        sb.append("- ");
        if (isBlock(e)) {
          block(e, indent + 2, sb);
        } else {
          sb.append(scalar(e)).append('\n');
        }
      }
    } else if (v instanceof Value.ObjectValue o) {
      for (Map.Entry<String, Value> e : o.attributes().entrySet()) {
        if (!first) {
          sb.append(pad);
        }
        first = false;
        sb.append(Json.quote(e.getKey())).append(':');
        Value x = e.getValue();
        if (x instanceof Value.ListValue && isBlock(x)) {
          sb.append('\n').append(pad);
          block(x, indent, sb);
        } else if (isBlock(x)) {
          sb.append('\n').append(pad).append("  ");
          block(x, indent + 2, sb);
        } else {
          sb.append(' ').append(scalar(x)).append('\n');
        }
      }
    }
  }

  private static String scalar(Value v) {
    return switch (v) {
      case Value.StringValue s -> Json.quote(s.value());
      case Value.NumberValue n -> Value.formatNumber(n.value());
      case Value.BoolValue b -> Boolean.toString(b.value());
      case Value.ListValue l -> "[]";
      case Value.ObjectValue o -> "{}";
      default -> "null";
    };
  }

  // ------------------------------------------------------------------ decode

  /** A resolver without the timestamp rule: Terraform keeps timestamps as strings. */
  private static final class NoTimestampResolver extends Resolver {
    @Override
    protected void addImplicitResolvers() {
      addImplicitResolver(Tag.BOOL, BOOL, "yYnNtTfFoO");
      addImplicitResolver(Tag.INT, INT, "-+0123456789");
      addImplicitResolver(Tag.FLOAT, FLOAT, "-+0123456789.");
      addImplicitResolver(Tag.MERGE, MERGE, "<");
      addImplicitResolver(Tag.NULL, NULL, "~nN\0");
      addImplicitResolver(Tag.NULL, EMPTY, null);
    }
  }

  /**
   * The value of a YAML document. Its collections count against {@code budget} as they are
   * converted: aliases make a small document stand for a very large value.
   */
  static Value decode(String text, EvalBudget budget) {
    LoaderOptions opts = new LoaderOptions();
    opts.setAllowDuplicateKeys(false);
    opts.setMaxAliasesForCollections(100);
    opts.setCodePointLimit(10 * 1024 * 1024);
    DumperOptions dump = new DumperOptions();
    org.yaml.snakeyaml.Yaml y =
        new org.yaml.snakeyaml.Yaml(
            new SafeConstructor(opts),
            new Representer(dump),
            dump,
            opts,
            new NoTimestampResolver());
    try {
      Iterator<Object> docs = y.loadAll(text).iterator();
      if (!docs.hasNext()) {
        return Value.NULL;
      }
      Object first = docs.next();
      if (docs.hasNext()) {
        throw new FunctionException(
            0, "the YAML contains more than one document; yamldecode accepts only one.");
      }
      return toValue(first, budget);
    } catch (YAMLException e) {
      throw new FunctionException(
          0,
          "the given string is not valid YAML: " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  private static Value toValue(Object o, EvalBudget budget) {
    return switch (o) {
      case null -> Value.NULL;
      case String s -> Value.string(s);
      case Boolean b -> Value.bool(b);
      case Integer i -> Value.number(i);
      case Long l -> Value.number(l);
      case BigInteger b -> Value.number(new BigDecimal(b));
      case Double d -> {
        if (d.isNaN() || d.isInfinite()) {
          throw new FunctionException(0, "YAML value " + d + " cannot be represented as a number.");
        }
        yield Value.number(new BigDecimal(d.toString()));
      }
      case Number n -> Value.number(new BigDecimal(n.toString()));
      case byte[] b -> Value.string(Base64.getEncoder().encodeToString(b));
      case List<?> l -> {
        budget.chargeElements(l.size(), YAMLDECODE);
        List<Value> out = new ArrayList<>();
        l.forEach(x -> out.add(toValue(x, budget)));
        yield Value.list(out);
      }
      case Map<?, ?> m -> {
        budget.chargeElements(m.size(), YAMLDECODE);
        Map<String, Value> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k == null ? "null" : key(k), toValue(v, budget)));
        yield Value.object(out);
      }
      case Set<?> s -> {
        budget.chargeElements(s.size(), YAMLDECODE);
        List<Value> out = new ArrayList<>();
        s.forEach(x -> out.add(toValue(x, budget)));
        yield Value.list(out);
      }
      default -> Value.string(o.toString());
    };
  }

  private static final String YAMLDECODE = "yamldecode()";

  private static String key(Object k) {
    if (k instanceof Double d) {
      return Value.formatNumber(new BigDecimal(d.toString()));
    }
    if (k instanceof Map || k instanceof List) {
      throw new FunctionException(0, "YAML mapping keys must be strings, numbers or bools.");
    }
    return k.toString();
  }
}
