package dev.stagecraft.language.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** JSON encoding/decoding of {@link Value}s as Terraform's jsonencode/jsondecode do it. */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

  /** Encodes a wholly known value (marks are ignored; the caller re-marks the result). */
  public static String encode(Value v) {
    StringBuilder sb = new StringBuilder();
    encode(v, sb);
    return sb.toString();
  }

  private static void encode(Value v, StringBuilder sb) {
    switch (v) {
      case Value.StringValue s -> sb.append(quote(s.value()));
      case Value.NumberValue n -> sb.append(Value.formatNumber(n.value()));
      case Value.BoolValue b -> sb.append(b.value());
      case Value.NullValue n -> sb.append("null");
      case Value.UnknownValue u -> sb.append(quote(Value.UNKNOWN_TEXT));
      case Value.ListValue l -> {
        sb.append('[');
        for (int i = 0; i < l.elements().size(); i++) {
          if (i > 0) {
            sb.append(',');
          }
          encode(l.elements().get(i), sb);
        }
        sb.append(']');
      }
      case Value.ObjectValue o -> {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, Value> e : o.attributes().entrySet()) {
          if (!first) {
            sb.append(',');
          }
          first = false;
          sb.append(quote(e.getKey())).append(':');
          encode(e.getValue(), sb);
        }
        sb.append('}');
      }
    }
  }

  public static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '<' -> sb.append("\\u003c");
        case '>' -> sb.append("\\u003e");
        case '&' -> sb.append("\\u0026");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  /**
   * Decodes JSON text.
   *
   * @throws IllegalArgumentException with a readable message if the text is not valid JSON
   */
  public static Value decode(String text) {
    try {
      JsonNode node = MAPPER.readTree(text);
      if (node == null || node.isMissingNode()) {
        throw new IllegalArgumentException("the text is empty, not a JSON value");
      }
      return fromNode(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e.getOriginalMessage(), e);
    }
  }

  private static Value fromNode(JsonNode n) {
    if (n.isNull()) {
      return Value.NULL;
    }
    if (n.isTextual()) {
      return Value.string(n.textValue());
    }
    if (n.isNumber()) {
      return Value.number(n.decimalValue());
    }
    if (n.isBoolean()) {
      return Value.bool(n.booleanValue());
    }
    if (n.isArray()) {
      List<Value> out = new ArrayList<>();
      n.forEach(e -> out.add(fromNode(e)));
      return Value.list(out);
    }
    Map<String, Value> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : n.properties()) {
      out.put(e.getKey(), fromNode(e.getValue()));
    }
    return Value.object(out);
  }
}
