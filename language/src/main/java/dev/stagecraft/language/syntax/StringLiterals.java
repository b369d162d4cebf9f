package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;

/**
 * The escapes of HCL string literals, as hclsyntax's {@code ParseStringLiteralToken} decodes
 * them: backslash escapes in quoted strings, and the {@code $${} / {@code %%{} escapes that quoted
 * strings and heredocs share. Invalid escapes become diagnostics pointing at the escape.
 */
final class StringLiterals {
  private final String file;
  private final Diagnostics diags;

  StringLiterals(String file, Diagnostics diags) {
    this.file = file;
    this.diags = diags;
  }

  /** Decodes a heredoc literal: only {@code $${} and {@code %%{} escape. */
  static String decodeHeredoc(String raw) {
    return raw.replace("$${", "${").replace("%%{", "%{");
  }

  /**
   * Decodes the literal text of a quoted string: the backslash escapes (newline, carriage return,
   * tab, quote, backslash, and 4- or 8-digit Unicode code points) and the {@code $${} / {@code
   * %%{} template escapes. An invalid escape is reported at its position and skipped.
   */
  String decodeQuoted(Token t) {
    String raw = t.text();
    StringBuilder sb = new StringBuilder(raw.length());
    int i = 0;
    while (i < raw.length()) {
      char c = raw.charAt(i);
      if (c == '\\') {
        if (i + 1 >= raw.length()) {
          escapeError(t, i, "\\");
          break;
        }
        char d = raw.charAt(i + 1);
        switch (d) {
          case 'n' -> sb.append('\n');
          case 'r' -> sb.append('\r');
          case 't' -> sb.append('\t');
          case '"' -> sb.append('"');
          case '\\' -> sb.append('\\');
          case 'u', 'U' -> {
            int len = d == 'u' ? 4 : 8;
            String hex = i + 2 + len <= raw.length() ? raw.substring(i + 2, i + 2 + len) : "";
            int cp = -1;
            if (hex.length() == len && hex.chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
              long v = Long.parseLong(hex, 16);
              cp = Character.isValidCodePoint((int) v) && v <= Integer.MAX_VALUE ? (int) v : -1;
            }
            if (cp < 0) {
              diags.error(
                  "Invalid escape sequence",
                  "\\"
                      + d
                      + " must be followed by exactly "
                      + len
                      + " hexadecimal digits of a valid Unicode code point.",
                  at(t, i));
            } else {
              sb.appendCodePoint(cp);
              i += len;
            }
          }
          default -> escapeError(t, i, String.valueOf(d));
        }
        i += 2;
        continue;
      }
      if ((c == '$' || c == '%') && raw.startsWith(c + "" + c + "{", i)) {
        sb.append(c).append('{');
        i += 3;
        continue;
      }
      sb.append(c);
      i++;
    }
    return sb.toString();
  }

  private SourceRange at(Token t, int i) {
    SourcePos s = new SourcePos(t.start().line(), t.start().column() + i, t.start().offset() + i);
    SourcePos e = new SourcePos(s.line(), s.column() + 2, s.offset() + 2);
    return new SourceRange(file, s, e);
  }

  private void escapeError(Token t, int i, String sym) {
    diags.error(
        "Invalid escape sequence",
        "The symbol \""
            + sym
            + "\" is not a valid escape sequence selector. Valid escapes are \\n, \\r, \\t, \\\","
            + " \\\\, \\uNNNN and \\UNNNNNNNN; write \\\\ for a literal backslash.",
        at(t, i));
  }
}
