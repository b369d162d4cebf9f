package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;

/** One token with its raw text and position. */
public record Token(TokenType type, String text, SourceRange range) {
  public SourcePos start() {
    return range.start();
  }

  public SourcePos end() {
    return range.end();
  }

  /** Human description for error messages. */
  public String describe() {
    return switch (type) {
      case EOF -> "end of file";
      case NEWLINE -> "newline";
      case IDENT -> "identifier \"" + text + "\"";
      case NUMBER -> "number " + text;
      case OQUOTE -> "quoted string";
      case TEMPLATE_LIT -> "string literal";
      case HEREDOC_BEGIN -> "heredoc";
      default -> "\"" + text.trim() + "\"";
    };
  }
}
