package dev.stagecraft.cli.run;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.UsageException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code .tfvars.json} file: one JSON object whose properties are variable values. Each value is
 * sent as the HCL expression of the same value, so the planner gives it its own type as for a
 * {@code .tfvars} file; strings stay literal, as in Terraform ({@code "${x}"} is not a template
 * there), so template sequences are escaped.
 */
final class JsonVarFile {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private JsonVarFile() {}

  /** Variable name → HCL expression text; a usage error names the file, line and column. */
  static Map<String, String> parse(String fileName, String text) {
    JsonNode root;
    try {
      root = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      var at = e.getLocation();
      throw new UsageException(
          "invalid variable file "
              + fileName
              + (at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr())
              + ": "
              + e.getOriginalMessage()
              + ". A .tfvars.json file is one JSON object: {\"name\": value, ...}.");
    }
    if (root == null || !root.isObject()) {
      throw new UsageException(
          "invalid variable file "
              + fileName
              + ": the root must be a JSON object of variable values, like {\"nodes\": [\"a\","
              + " \"b\"]}.");
    }
    Map<String, String> out = new LinkedHashMap<>();
    root.properties().forEach(p -> out.put(p.getKey(), hcl(p.getValue())));
    return out;
  }

  /** The HCL expression that evaluates to the same value as the JSON one. */
  static String hcl(JsonNode node) {
    StringBuilder sb = new StringBuilder();
    write(node, sb);
    return sb.toString();
  }

  private static void write(JsonNode node, StringBuilder sb) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        sb.append('{');
        var fields = node.properties().iterator();
        while (fields.hasNext()) {
          var f = fields.next();
          quote(f.getKey(), sb);
          sb.append(" = ");
          write(f.getValue(), sb);
          if (fields.hasNext()) {
            sb.append(", ");
          }
        }
        sb.append('}');
      }
      case ARRAY -> {
        sb.append('[');
        for (int i = 0; i < node.size(); i++) {
          if (i > 0) {
            sb.append(", ");
          }
          write(node.get(i), sb);
        }
        sb.append(']');
      }
      case STRING -> quote(node.asText(), sb);
      case NUMBER -> sb.append(node.decimalValue().toPlainString());
      case BOOLEAN -> sb.append(node.asBoolean());
      default -> sb.append("null");
    }
  }

  private static void quote(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean template = (c == '$' || c == '%') && i + 1 < s.length() && s.charAt(i + 1) == '{';
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
            if (template) {
              sb.append(c);
            }
          }
        }
      }
    }
    sb.append('"');
  }
}
