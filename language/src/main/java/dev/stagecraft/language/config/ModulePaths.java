package dev.stagecraft.language.config;

import java.math.BigDecimal;

/**
 * The names module instances have in the flattened configuration ({@link ModuleFlattener}): the
 * instance {@code module.app["eu"]} is {@code module.app{"eu"}}, with {@code %}, {@code .},
 * brackets and braces inside the key percent-encoded, so that a flattened name has no {@code [}
 * (which starts a resource instance key) and its last {@code .} ends the module path.
 */
public final class ModulePaths {
  private static final String ENCODED = "%.[]{}";

  private ModulePaths() {}

  /** The key of an instance as Terraform writes it in brackets: {@code 0} or {@code "eu"}. */
  public static String keyText(Object key) {
    if (key instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    return key instanceof BigDecimal b ? b.toPlainString() : String.valueOf(key);
  }

  /** The flattened segment of an instance key: {@code "eu"} → {@code {"eu"}}. */
  public static String segment(Object key) {
    return "{" + encode(keyText(key)) + "}";
  }

  /** A key's text with the characters a flattened name may not hold percent-encoded. */
  public static String encode(String keyText) {
    StringBuilder out = new StringBuilder();
    for (char c : keyText.toCharArray()) {
      if (ENCODED.indexOf(c) >= 0) {
        out.append('%').append(String.format("%02X", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** The inverse of {@link #encode}. */
  public static String decode(String encoded) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%' && i + 2 < encoded.length()) {
        out.append((char) Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** A flattened module path ({@code module.app{"eu"}.module.db}) in Terraform's form. */
  public static String external(String flattened) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < flattened.length()) {
      char c = flattened.charAt(i);
      int close = c == '{' ? flattened.indexOf('}', i) : -1;
      if (close > 0) {
        out.append('[').append(decode(flattened.substring(i + 1, close))).append(']');
        i = close + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
