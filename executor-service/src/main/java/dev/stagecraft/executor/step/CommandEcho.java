package dev.stagecraft.executor.step;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The line Terraform's local-exec prints before running a command: {@code Executing:} followed by
 * the argument vector formatted like Go's {@code %q} of a {@code []string}, e.g. {@code Executing:
 * ["/bin/sh" "-c" "echo hi"]}. Users and tools that know Terraform's output recognise it.
 */
final class CommandEcho {
  private CommandEcho() {}

  static String of(List<String> argv) {
    return "Executing: "
        + argv.stream().map(CommandEcho::goQuote).collect(Collectors.joining(" ", "[", "]"));
  }

  /** A Go double-quoted string literal (strconv.Quote) for the printable-ASCII-and-Unicode case. */
  static String goQuote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    s.codePoints()
        .forEach(
            cp -> {
              switch (cp) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                case 0x07 -> b.append("\\a");
                case 0x08 -> b.append("\\b");
                case 0x0b -> b.append("\\v");
                case 0x0c -> b.append("\\f");
                default -> {
                  if (cp < 0x20 || cp == 0x7f) {
                    b.append(String.format("\\x%02x", cp));
                  } else {
                    b.appendCodePoint(cp);
                  }
                }
              }
            });
    return b.append('"').toString();
  }
}
