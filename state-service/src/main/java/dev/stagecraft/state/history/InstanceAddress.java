package dev.stagecraft.state.history;

import java.util.Objects;

/**
 * A resource instance address such as {@code stateful_provisioning.app}, {@code
 * stateful_provisioning.app[0]}, {@code stateful_provisioning.app["blue"]} or {@code
 * module.net.stateful_provisioning.app[1]}.
 *
 * @param module the module path ({@code module.net}) or null for the root module
 * @param mode {@code managed} or {@code data}
 * @param indexKey null, an {@link Long} ({@code count}) or a {@link String} ({@code for_each})
 */
public record InstanceAddress(
    String module, String mode, String type, String name, Object indexKey) {

  /**
   * Parses an address.
   *
   * @throws IllegalArgumentException naming the problem when it is not a valid address
   */
  public static InstanceAddress parse(String address) {
    if (address == null || address.isBlank()) {
      throw new IllegalArgumentException("instance address is empty");
    }
    Parser p = new Parser(address);
    StringBuilder module = new StringBuilder();
    while (address.startsWith("module.", p.pos)) {
      p.pos += "module.".length();
      String name = p.identifier();
      Object key = p.optionalKey();
      p.expect('.');
      if (!module.isEmpty()) {
        module.append('.');
      }
      module.append("module.").append(name).append(key == null ? "" : keyText(key));
    }
    String mode = "managed";
    if (address.startsWith("data.", p.pos)) {
      p.pos += "data.".length();
      mode = "data";
    }
    String type = p.identifier();
    p.expect('.');
    String name = p.identifier();
    Object key = p.optionalKey();
    if (p.pos != address.length()) {
      throw p.error("unexpected '" + address.substring(p.pos) + "'");
    }
    return new InstanceAddress(module.isEmpty() ? null : module.toString(), mode, type, name, key);
  }

  /** The resource this instance belongs to, without the index key. */
  public String resourceAddress() {
    String base = ("data".equals(mode) ? "data." : "") + type + "." + name;
    return module == null ? base : module + "." + base;
  }

  private static String keyText(Object key) {
    return key instanceof String s ? "[\"" + s.replace("\"", "\\\"") + "\"]" : "[" + key + "]";
  }

  @Override
  public String toString() {
    return resourceAddress() + (indexKey == null ? "" : keyText(indexKey));
  }

  private static final class Parser {
    private final String text;
    private int pos;

    Parser(String text) {
      this.text = Objects.requireNonNull(text);
    }

    String identifier() {
      int start = pos;
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (Character.isLetterOrDigit(c) || c == '_' || c == '-') {
          pos++;
        } else {
          break;
        }
      }
      if (start == pos || !Character.isLetter(text.charAt(start)) && text.charAt(start) != '_') {
        throw error("expected a name at position " + (start + 1));
      }
      return text.substring(start, pos);
    }

    void expect(char c) {
      if (pos >= text.length() || text.charAt(pos) != c) {
        throw error("expected '" + c + "' at position " + (pos + 1));
      }
      pos++;
    }

    Object optionalKey() {
      if (pos >= text.length() || text.charAt(pos) != '[') {
        return null;
      }
      pos++;
      Object key;
      if (pos < text.length() && text.charAt(pos) == '"') {
        pos++;
        StringBuilder s = new StringBuilder();
        while (true) {
          if (pos >= text.length()) {
            throw error("unterminated string key");
          }
          char c = text.charAt(pos++);
          if (c == '"') {
            break;
          }
          if (c == '\\' && pos < text.length()) {
            c = text.charAt(pos++);
          }
          s.append(c);
        }
        key = s.toString();
      } else {
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
          pos++;
        }
        if (start == pos) {
          throw error("expected a number or a quoted string as index at position " + (pos + 1));
        }
        key = Long.parseLong(text.substring(start, pos));
      }
      expect(']');
      return key;
    }

    IllegalArgumentException error(String message) {
      return new IllegalArgumentException(
          "invalid instance address '"
              + text
              + "': "
              + message
              + " (expected e.g. type.name, type.name[0] or type.name[\"key\"])");
    }
  }
}
