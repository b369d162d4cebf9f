package dev.stagecraft.language.syntax;

import static dev.stagecraft.language.syntax.TokenType.*;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The token stream the parsers share, like hclsyntax's {@code peeker}: a position in the token
 * list, a stack that says whether newlines are significant (in bodies) or skipped (inside brackets,
 * parentheses and templates), the nesting depth guard, and recovery skips.
 *
 * <p>Errors go to the shared {@link Diagnostics}; {@link #fail} returns a {@link Bail} for the
 * caller to throw, which abandons the current body item (caught in the body loop and the entry
 * points, never escaping {@link Parser}).
 */
final class TokenCursor {
  private static final int MAX_DEPTH = 200;

  /** Thrown internally to abandon the current body item; never escapes the parser. */
  static final class Bail extends RuntimeException {
    Bail() {
      super(null, null, false, false);
    }
  }

  private final List<Token> toks;
  private final Diagnostics diags;
  private final Deque<Boolean> newlines = new ArrayDeque<>();
  private int pos;
  private int depth;
  private Token last;

  TokenCursor(List<Token> toks, Diagnostics diags) {
    this.toks = toks;
    this.diags = diags;
    this.last = toks.get(0);
  }

  /** The first token of the stream. */
  Token first() {
    return toks.get(0);
  }

  /** The token most recently consumed. */
  Token last() {
    return last;
  }

  /** Makes newlines significant ({@code true}, in bodies) or skipped until the matching pop. */
  void pushNewlines(boolean significant) {
    newlines.push(significant);
  }

  void popNewlines() {
    newlines.pop();
  }

  /** The depth of the newline stack, to unwind to after a {@link Bail}. */
  int newlineDepth() {
    return newlines.size();
  }

  private boolean newlinesSignificant() {
    return newlines.isEmpty() || newlines.peek();
  }

  Token peek() {
    return peekAt(0);
  }

  Token peekAt(int k) {
    boolean skip = !newlinesSignificant();
    int i = pos;
    int seen = 0;
    while (true) {
      Token t = toks.get(i);
      if (t.type() == EOF) {
        return t;
      }
      if (skip && t.type() == NEWLINE) {
        i++;
        continue;
      }
      if (seen == k) {
        return t;
      }
      seen++;
      i++;
    }
  }

  Token next() {
    if (!newlinesSignificant()) {
      while (toks.get(pos).type() == NEWLINE) {
        pos++;
      }
    }
    Token t = toks.get(pos);
    if (t.type() != EOF) {
      pos++;
    }
    last = t;
    return t;
  }

  Bail fail(String summary, String detail, SourceRange range) {
    diags.error(summary, detail, range);
    return new Bail();
  }

  Token expect(TokenType type, String summary, String detail) {
    Token t = peek();
    if (t.type() != type) {
      throw fail(summary, detail + " Found " + t.describe() + " instead.", t.range());
    }
    return next();
  }

  boolean isKeyword(Token t, String kw) {
    return t.type() == IDENT && t.text().equals(kw);
  }

  void enter() {
    if (++depth > MAX_DEPTH) {
      depth = 0;
      throw fail(
          "Nesting too deep",
          "Expressions and blocks may be nested at most " + MAX_DEPTH + " levels deep.",
          peek().range());
    }
  }

  /** Leaves a nesting level entered with {@link #enter()}. */
  void leave() {
    depth--;
  }

  /** Skips to the end of the current line at bracket depth zero, or to an unmatched "}". */
  void recoverToLineEnd() {
    int d = 0;
    while (true) {
      Token t = toks.get(pos);
      switch (t.type()) {
        case EOF -> {
          return;
        }
        case NEWLINE -> {
          if (d <= 0) {
            return;
          }
        }
        case RBRACE -> {
          if (d <= 0) {
            return;
          }
          d--;
        }
        case LBRACE, LBRACK, LPAREN, OQUOTE, TEMPLATE_INTERP, TEMPLATE_CONTROL, HEREDOC_BEGIN ->
            d++;
        case RBRACK, RPAREN, CQUOTE, TEMPLATE_SEQ_END, HEREDOC_END -> d = Math.max(0, d - 1);
        default -> {}
      }
      pos++;
      last = t;
    }
  }

  /** Skips past the "}" matching the "{" just read (or to the end of the file). */
  void skipPastClose() {
    int d = 0;
    while (true) {
      Token t = toks.get(pos);
      if (t.type() == EOF) {
        break;
      }
      pos++;
      last = t;
      if (t.type() == LBRACE) {
        d++;
      } else if (t.type() == RBRACE && d-- == 0) {
        break;
      }
    }
  }
}
