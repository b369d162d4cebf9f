package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A modal lexer for HCL native syntax. Like HashiCorp's scanner it keeps a stack of modes: normal
 * code, a brace nested in normal code, a quoted template, a heredoc template, and an interpolation
 * ({@code ${...}} / {@code %{...}}) nested in a template. A {@code }} closes whatever is on top.
 *
 * <p>Never throws for any input: problems become diagnostics and {@link TokenType#INVALID} tokens.
 */
public final class Lexer {
  private enum Kind {
    BRACE,
    INTERP,
    QUOTED,
    HEREDOC
  }

  private static final class Mode {
    final Kind kind;
    final SourceRange open;
    final String marker;
    boolean lineStart;

    Mode(Kind kind, SourceRange open, String marker) {
      this.kind = kind;
      this.open = open;
      this.marker = marker;
      this.lineStart = true;
    }
  }

  private final String file;
  private final String src;
  private final Diagnostics diags;
  private final List<Token> out = new ArrayList<>();
  private final Deque<Mode> stack = new ArrayDeque<>();
  private int pos;
  private int line = 1;
  private int col = 1;
  private int base;

  private Lexer(String file, String src, Diagnostics diags) {
    this.file = file;
    this.src = src;
    this.diags = diags;
  }

  /** Tokenizes {@code src}; the result always ends with an {@link TokenType#EOF} token. */
  public static List<Token> lex(String file, String src, Diagnostics diags) {
    Lexer l = new Lexer(file, src == null ? "" : src, diags);
    l.run();
    return l.out;
  }

  /**
   * Tokenizes {@code src} as if it started at {@code start} of {@code file} (for expressions
   * embedded in another syntax, e.g. strings of {@code *.tf.json}).
   */
  public static List<Token> lex(String file, String src, SourcePos start, Diagnostics diags) {
    Lexer l = new Lexer(file, src == null ? "" : src, diags);
    l.line = start.line();
    l.col = start.column();
    l.base = start.offset();
    l.run();
    return l.out;
  }

  /**
   * Tokenizes {@code src} as a bare template (the whole text is template literal text with {@code
   * ${}} and {@code %{}} sequences and no escapes other than {@code $${} and {@code %%{}), as
   * {@code templatefile} and JSON strings are read. The literal tokens are followed by a {@link
   * TokenType#HEREDOC_END} token of length zero, then EOF.
   */
  public static List<Token> lexTemplate(
      String file, String src, SourcePos start, Diagnostics diags) {
    Lexer l = new Lexer(file, src == null ? "" : src, diags);
    l.line = start.line();
    l.col = start.column();
    l.base = start.offset();
    SourcePos p = l.here();
    l.stack.push(new Mode(Kind.HEREDOC, new SourceRange(file, p, p), null));
    l.run();
    return l.out;
  }

  private void run() {
    while (true) {
      Mode m = stack.peek();
      if (m == null || m.kind == Kind.BRACE || m.kind == Kind.INTERP) {
        if (!lexNormal()) {
          break;
        }
      } else if (m.kind == Kind.QUOTED) {
        lexQuoted(m);
      } else {
        lexHeredoc(m);
      }
    }
    SourcePos p = here();
    out.add(new Token(TokenType.EOF, "", new SourceRange(file, p, p)));
  }

  private SourcePos here() {
    return new SourcePos(line, col, base + pos);
  }

  private boolean eof() {
    return pos >= src.length();
  }

  private char at(int i) {
    return i < src.length() ? src.charAt(i) : '\0';
  }

  private void advance() {
    if (src.charAt(pos) == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
    pos++;
  }

  private void advance(int n) {
    for (int i = 0; i < n && !eof(); i++) {
      advance();
    }
  }

  private Token emit(TokenType type, SourcePos start) {
    Token t =
        new Token(
            type, src.substring(start.offset() - base, pos), new SourceRange(file, start, here()));
    out.add(t);
    return t;
  }

  /** Lexes one token in normal mode; returns false at end of input. */
  private boolean lexNormal() {
    while (!eof() && (at(pos) == ' ' || at(pos) == '\t' || at(pos) == '\r')) {
      advance();
    }
    if (eof()) {
      return false;
    }
    SourcePos start = here();
    char c = at(pos);
    char n = at(pos + 1);
    switch (c) {
      case '\n' -> {
        advance();
        emit(TokenType.NEWLINE, start);
      }
      case '#' -> skipLineComment();
      case '/' -> slashOrComment(n, start);
      case '{' -> {
        advance();
        Token t = emit(TokenType.LBRACE, start);
        stack.push(new Mode(Kind.BRACE, t.range(), null));
      }
      case '}' -> closeBrace(start);
      case '~' -> {
        Mode top = stack.peek();
        if (n == '}' && top != null && top.kind == Kind.INTERP) {
          advance(2);
          stack.pop();
          emit(TokenType.TEMPLATE_SEQ_END, start);
        } else {
          advance();
          invalid(start, "The \"~\" strip marker is only valid right before a closing \"}\".");
        }
      }
      case '[' -> single(TokenType.LBRACK, start);
      case ']' -> single(TokenType.RBRACK, start);
      case '(' -> single(TokenType.LPAREN, start);
      case ')' -> single(TokenType.RPAREN, start);
      case ',' -> single(TokenType.COMMA, start);
      case ':' -> {
        if (n == ':') {
          advance(2);
          emit(TokenType.DOUBLE_COLON, start);
        } else {
          single(TokenType.COLON, start);
        }
      }
      case '?' -> single(TokenType.QUESTION, start);
      case '+' -> single(TokenType.PLUS, start);
      case '-' -> single(TokenType.MINUS, start);
      case '*' -> single(TokenType.STAR, start);
      case '%' -> single(TokenType.PERCENT, start);
      case '.' -> {
        if (n == '.' && at(pos + 2) == '.') {
          advance(3);
          emit(TokenType.ELLIPSIS, start);
        } else {
          single(TokenType.DOT, start);
        }
      }
      case '=', '!', '<', '>', '&', '|' -> operator(c, n, start);
      case '"' -> {
        advance();
        Token t = emit(TokenType.OQUOTE, start);
        stack.push(new Mode(Kind.QUOTED, t.range(), null));
      }
      default -> numberIdentOrInvalid(c, start);
    }
    return true;
  }

  /** A "}" ends an interpolation or a brace block, whichever is innermost. */
  private void closeBrace(SourcePos start) {
    advance();
    Mode top = stack.peek();
    if (top != null && top.kind == Kind.INTERP) {
      stack.pop();
      emit(TokenType.TEMPLATE_SEQ_END, start);
    } else {
      if (top != null && top.kind == Kind.BRACE) {
        stack.pop();
      }
      emit(TokenType.RBRACE, start);
    }
  }

  /** A line or block comment, or the division operator. */
  private void slashOrComment(char n, SourcePos start) {
    if (n == '/') {
      skipLineComment();
    } else if (n == '*') {
      int endIdx = src.indexOf("*/", pos + 2);
      if (endIdx < 0) {
        advance(src.length() - pos);
        diags.error(
            "Unterminated comment",
            "There is no closing \"*/\" for the comment that starts here. Add \"*/\" where"
                + " the comment should end.",
            new SourceRange(file, start, start));
      } else {
        advance(endIdx + 2 - pos);
      }
    } else {
      advance();
      emit(TokenType.SLASH, start);
    }
  }

  /** Comparison, logical and heredoc-opening operators ({@code = ! < > & |} and their pairs). */
  private void operator(char c, char n, SourcePos start) {
    switch (c) {
      case '=' -> {
        if (n == '=') {
          advance(2);
          emit(TokenType.EQEQ, start);
        } else if (n == '>') {
          advance(2);
          emit(TokenType.FATARROW, start);
        } else {
          single(TokenType.EQUAL, start);
        }
      }
      case '!' -> {
        if (n == '=') {
          advance(2);
          emit(TokenType.NOTEQ, start);
        } else {
          single(TokenType.BANG, start);
        }
      }
      case '<' -> {
        if (n == '=') {
          advance(2);
          emit(TokenType.LE, start);
        } else if (n == '<') {
          heredocBegin(start);
        } else {
          single(TokenType.LT, start);
        }
      }
      case '>' -> {
        if (n == '=') {
          advance(2);
          emit(TokenType.GE, start);
        } else {
          single(TokenType.GT, start);
        }
      }
      case '&' -> {
        if (n == '&') {
          advance(2);
          emit(TokenType.AND, start);
        } else {
          advance();
          invalid(start, "Did you mean \"&&\" (logical AND)?");
        }
      }
      case '|' -> {
        if (n == '|') {
          advance(2);
          emit(TokenType.OR, start);
        } else {
          advance();
          invalid(start, "Did you mean \"||\" (logical OR)?");
        }
      }
      default -> throw new IllegalArgumentException(String.valueOf(c));
    }
  }

  private void numberIdentOrInvalid(char c, SourcePos start) {
    if (c >= '0' && c <= '9') {
      number(start);
    } else if (isIdentStart(c)) {
      while (!eof() && isIdentPart(at(pos))) {
        advance();
      }
      emit(TokenType.IDENT, start);
    } else {
      advance();
      if (Character.isHighSurrogate(c) && !eof() && Character.isLowSurrogate(at(pos))) {
        advance();
      }
      invalid(
          start,
          c == '\''
              ? "Single quotes are not valid. Use double quotes (\") to enclose strings."
              : "This character is not used within the language.");
    }
  }

  private void single(TokenType type, SourcePos start) {
    advance();
    emit(type, start);
  }

  private void invalid(SourcePos start, String detail) {
    Token t = emit(TokenType.INVALID, start);
    diags.error("Invalid character", detail, t.range());
  }

  private void skipLineComment() {
    while (!eof() && at(pos) != '\n') {
      advance();
    }
  }

  private static boolean isIdentStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isIdentPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void number(SourcePos start) {
    while (isDigit(at(pos))) {
      advance();
    }
    if (at(pos) == '.' && isDigit(at(pos + 1))) {
      advance();
      while (isDigit(at(pos))) {
        advance();
      }
    }
    char e = at(pos);
    if (e == 'e' || e == 'E') {
      char s = at(pos + 1);
      if (isDigit(s) || ((s == '+' || s == '-') && isDigit(at(pos + 2)))) {
        advance(isDigit(s) ? 1 : 2);
        while (isDigit(at(pos))) {
          advance();
        }
      }
    }
    emit(TokenType.NUMBER, start);
  }

  private void heredocBegin(SourcePos start) {
    int j = pos + 2;
    if (at(j) == '-') {
      j++;
    }
    int identStart = j;
    if (isIdentStart(at(j))) {
      while (j < src.length() && isIdentPart(at(j))) {
        j++;
      }
    }
    String marker = src.substring(identStart, j);
    int nl = at(j) == '\r' && at(j + 1) == '\n' ? j + 2 : (at(j) == '\n' ? j + 1 : -1);
    if (marker.isEmpty() || nl < 0) {
      advance(2);
      Token t = emit(TokenType.INVALID, start);
      diags.error(
          "Invalid heredoc",
          "A heredoc starts with \"<<\" or \"<<-\", an identifier marker and then immediately a"
              + " newline, e.g. <<EOT. The text ends at a line containing only the marker.",
          t.range());
      return;
    }
    advance(nl - pos);
    Token t = emit(TokenType.HEREDOC_BEGIN, start);
    stack.push(new Mode(Kind.HEREDOC, t.range(), marker));
  }

  private void lexQuoted(Mode m) {
    SourcePos litStart = here();
    while (true) {
      if (eof() || at(pos) == '\n') {
        flushLit(litStart);
        diags.error(
            "Unterminated template string",
            "No closing quote (\") for the string that starts here. Quoted strings may not be split"
                + " over multiple lines: add the closing quote on the same line, or use \\n or a"
                + " heredoc (<<EOT) for multi-line text.",
            m.open);
        stack.pop();
        SourcePos p = here();
        out.add(new Token(TokenType.CQUOTE, "", new SourceRange(file, p, p)));
        return;
      }
      char c = at(pos);
      if (c == '"') {
        flushLit(litStart);
        SourcePos s = here();
        advance();
        emit(TokenType.CQUOTE, s);
        stack.pop();
        return;
      }
      if (c == '\\') {
        advance();
        if (!eof() && at(pos) != '\n') {
          advance();
        }
        continue;
      }
      if (templateSequence(litStart)) {
        return;
      }
    }
  }

  /**
   * Handles {@code $}/{@code %} in template mode; returns true if an interpolation or directive was
   * opened (the caller must return to let normal mode run).
   */
  private boolean templateSequence(SourcePos litStart) {
    char c = at(pos);
    if ((c == '$' || c == '%') && at(pos + 1) == '{') {
      flushLit(litStart);
      SourcePos s = here();
      advance(2);
      if (at(pos) == '~') {
        advance();
      }
      Token t = emit(c == '$' ? TokenType.TEMPLATE_INTERP : TokenType.TEMPLATE_CONTROL, s);
      stack.push(new Mode(Kind.INTERP, t.range(), null));
      return true;
    }
    if ((c == '$' || c == '%') && at(pos + 1) == c && at(pos + 2) == '{') {
      advance(3);
      return false;
    }
    advance();
    return false;
  }

  private void flushLit(SourcePos litStart) {
    if (base + pos > litStart.offset()) {
      emit(TokenType.TEMPLATE_LIT, litStart);
    }
  }

  private void lexHeredoc(Mode m) {
    if (m.lineStart && m.marker != null) {
      int j = pos;
      while (at(j) == ' ' || at(j) == '\t') {
        j++;
      }
      if (src.startsWith(m.marker, j)) {
        int k = j + m.marker.length();
        if (k >= src.length() || at(k) == '\n' || (at(k) == '\r' && at(k + 1) == '\n')) {
          advance(j - pos);
          SourcePos s = here();
          advance(m.marker.length());
          emit(TokenType.HEREDOC_END, s);
          stack.pop();
          return;
        }
      }
      m.lineStart = false;
    }
    SourcePos litStart = here();
    while (true) {
      if (eof() && m.marker == null) {
        flushLit(litStart);
        stack.pop();
        SourcePos p = here();
        out.add(new Token(TokenType.HEREDOC_END, "", new SourceRange(file, p, p)));
        return;
      }
      if (eof()) {
        flushLit(litStart);
        diags.error(
            "Unterminated heredoc",
            "The heredoc that starts here has no closing marker. Add a line containing only \""
                + m.marker
                + "\" after the text.",
            m.open);
        stack.pop();
        SourcePos p = here();
        out.add(new Token(TokenType.HEREDOC_END, "", new SourceRange(file, p, p)));
        return;
      }
      if (at(pos) == '\n') {
        advance();
        flushLit(litStart);
        m.lineStart = true;
        return;
      }
      if (templateSequence(litStart)) {
        return;
      }
    }
  }
}
