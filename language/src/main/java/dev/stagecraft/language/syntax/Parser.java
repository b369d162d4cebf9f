package dev.stagecraft.language.syntax;

import static dev.stagecraft.language.syntax.TokenType.*;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recursive-descent parser for HCL native syntax producing an immutable AST with source ranges.
 *
 * <p>Errors are reported as diagnostics. Inside a body the parser recovers at the end of the
 * offending line (or at the closing brace of the enclosing block), so one pass reports several
 * problems. The public entry points never throw for any input.
 *
 * <p>This class reads bodies (arguments and blocks) and holds the entry points; the work is split
 * as hclsyntax splits it: {@link ExpressionParser} for expressions, {@link TemplateParser} for
 * string templates and heredocs, {@link StringLiterals} for escapes, all reading one {@link
 * TokenCursor}.
 */
public final class Parser {
  private final String file;
  private final Diagnostics diags;
  private final TokenCursor in;
  private final StringLiterals strings;
  private final ExpressionParser expressions;

  private Parser(String file, List<Token> toks, Diagnostics diags) {
    this.file = file;
    this.diags = diags;
    this.in = new TokenCursor(toks, diags);
    this.strings = new StringLiterals(file, diags);
    this.expressions = new ExpressionParser(in, file, diags, strings);
  }

  /** Parses a whole file ({@code *.tf}). */
  public static ParseResult parse(String file, String text) {
    Diagnostics d = new Diagnostics();
    SourceRange whole = new SourceRange(file, SourcePos.START, SourcePos.START);
    try {
      List<Token> toks = Lexer.lex(file, text, d);
      Parser p = new Parser(file, toks, d);
      return new ParseResult(p.parseBody(null), d);
    } catch (RuntimeException | StackOverflowError e) {
      d.error(
          "Internal parser error",
          "The parser failed unexpectedly (" + e + "). This is a bug; please report it.",
          whole);
      return new ParseResult(new Body(List.of(), whole), d);
    }
  }

  /** Parses a standalone expression (for tests, the REPL-like console and variable values). */
  public static ExpressionResult parseExpression(String file, String text) {
    return parseExpression(file, text, SourcePos.START);
  }

  /**
   * Parses a standalone expression whose text starts at {@code start} of {@code file} (e.g. inside
   * a JSON string), so that ranges point into the enclosing file.
   */
  public static ExpressionResult parseExpression(String file, String text, SourcePos start) {
    Diagnostics d = new Diagnostics();
    try {
      List<Token> toks = Lexer.lex(file, text, start, d);
      Parser p = new Parser(file, toks, d);
      p.in.pushNewlines(false);
      Expression e = p.expressions.parseExpr();
      Token t = p.in.peek();
      if (t.type() != EOF) {
        d.error(
            "Extra characters after expression",
            "Expected the end of the expression, but found " + t.describe() + ".",
            t.range());
      }
      return new ExpressionResult(e, d);
    } catch (TokenCursor.Bail b) {
      return new ExpressionResult(null, d);
    } catch (RuntimeException | StackOverflowError e) {
      d.error(
          "Internal parser error",
          "The parser failed unexpectedly (" + e + "). This is a bug; please report it.",
          new SourceRange(file, SourcePos.START, SourcePos.START));
      return new ExpressionResult(null, d);
    }
  }

  /**
   * Parses {@code text} as a bare string template: literal text with {@code ${...}} interpolations
   * and {@code %{...}} directives, without quotes or backslash escapes (only {@code $${} and {@code
   * %%{} escape). This is how {@code templatefile} reads a template file and how {@code *.tf.json}
   * reads string values. {@code start} is where the text begins in {@code file}.
   */
  public static ExpressionResult parseTemplate(String file, String text, SourcePos start) {
    Diagnostics d = new Diagnostics();
    try {
      List<Token> toks = Lexer.lexTemplate(file, text, start, d);
      Parser p = new Parser(file, toks, d);
      return new ExpressionResult(p.expressions.templates().parseBare(start), d);
    } catch (TokenCursor.Bail b) {
      return new ExpressionResult(null, d);
    } catch (RuntimeException | StackOverflowError e) {
      d.error(
          "Internal parser error",
          "The parser failed unexpectedly (" + e + "). This is a bug; please report it.",
          new SourceRange(file, start, start));
      return new ExpressionResult(null, d);
    }
  }

  private Body parseBody(Token open) {
    List<Body.BodyItem> items = new ArrayList<>();
    Map<String, Body.Attribute> seen = new HashMap<>();
    SourcePos start = open == null ? in.first().start() : open.start();
    in.pushNewlines(true);
    int savedNl = in.newlineDepth();
    loop:
    while (true) {
      Token t = in.peek();
      switch (t.type()) {
        case NEWLINE -> in.next();
        case EOF -> {
          if (open != null) {
            diags.error(
                "Unclosed configuration block",
                "There is no closing brace for this block before the end of the file. Add a \"}\""
                    + " to close it; this may also be caused by incorrect brace nesting elsewhere"
                    + " in the file.",
                open.range());
          }
          break loop;
        }
        case RBRACE -> {
          in.next();
          if (open != null) {
            break loop;
          }
          diags.error(
              "Unexpected closing brace",
              "This \"}\" does not close any block. Remove it or add the missing opening \"{\".",
              t.range());
        }
        case IDENT -> {
          try {
            Body.BodyItem item = parseItem();
            if (item instanceof Body.Attribute a) {
              Body.Attribute prev = seen.putIfAbsent(a.name(), a);
              if (prev != null) {
                diags.error(
                    "Attribute redefined",
                    "The argument \""
                        + a.name()
                        + "\" was already set at "
                        + prev.nameRange()
                        + ". Each argument may be set only once; remove one of them.",
                    a.nameRange());
              }
            }
            items.add(item);
          } catch (TokenCursor.Bail b) {
            while (in.newlineDepth() > savedNl) {
              in.popNewlines();
            }
            in.recoverToLineEnd();
          }
        }
        default -> {
          diags.error(
              "Argument or block definition required",
              "An argument or block definition is required here, but found "
                  + t.describe()
                  + ". To set an argument, write name = value; a block is type \"label\" { ... }.",
              t.range());
          in.recoverToLineEnd();
        }
      }
    }
    in.popNewlines();
    SourcePos end = in.last().end().offset() >= start.offset() ? in.last().end() : start;
    return new Body(items, new SourceRange(file, start, end));
  }

  private Body.BodyItem parseItem() {
    Token name = in.next();
    Token t = in.peek();
    if (t.type() == EQUAL) {
      in.next();
      Expression e = expressions.parseExpr();
      expectItemEnd("argument");
      return new Body.Attribute(name.text(), e, name.range(), name.range().to(e.range()));
    }
    List<String> labels = new ArrayList<>();
    List<SourceRange> labelRanges = new ArrayList<>();
    while (in.peek().type() == OQUOTE || in.peek().type() == IDENT) {
      if (in.peek().type() == IDENT) {
        Token l = in.next();
        labels.add(l.text());
        labelRanges.add(l.range());
      } else {
        Token oq = in.next();
        StringBuilder sb = new StringBuilder();
        while (in.peek().type() == TEMPLATE_LIT) {
          sb.append(strings.decodeQuoted(in.next()));
        }
        if (in.peek().type() != CQUOTE) {
          throw in.fail(
              "Invalid block label",
              "Block labels must be literal strings; template sequences (${...}, %{...}) are not"
                  + " allowed here.",
              in.peek().range());
        }
        Token cq = in.next();
        labels.add(sb.toString());
        labelRanges.add(oq.range().to(cq.range()));
      }
    }
    if (in.peek().type() == LBRACE) {
      Token open = in.next();
      in.enter();
      TokenType first = in.peek().type();
      Body body =
          first == NEWLINE || first == EOF || first == RBRACE
              ? parseBody(open)
              : parseSingleAttrBody(open);
      in.leave();
      SourceRange range = name.range().to(in.last().range());
      expectItemEnd("block");
      return new Body.Block(name.text(), labels, labelRanges, body, name.range(), range);
    }
    Token bad = in.peek();
    if (labels.isEmpty() && (bad.type() == NEWLINE || bad.type() == EOF)) {
      throw in.fail(
          "Argument or block definition required",
          "An argument or block definition is required here. To set an argument, use the equals"
              + " sign \"=\" to introduce the argument value: "
              + name.text()
              + " = <value>.",
          name.range());
    }
    if (labels.isEmpty() && bad.type() == COLON) {
      throw in.fail(
          "Invalid argument definition",
          "Arguments are set with \"=\", not \":\". Write " + name.text() + " = <value>.",
          bad.range());
    }
    throw in.fail(
        "Invalid block definition",
        "Either a quoted string block label or an opening brace (\"{\") is expected here, but found "
            + bad.describe()
            + ".",
        bad.range());
  }

  /**
   * The body of a one-line block, {@code b { x = 1 }}: as in HCL, content on the line of the
   * opening brace makes it a single-line block, which holds exactly one argument (no nested block)
   * and closes on the same line. On error the block is skipped up to its closing brace.
   */
  private Body parseSingleAttrBody(Token open) {
    Token name = in.peek();
    Token after = in.peekAt(1);
    if (name.type() != IDENT || after.type() != EQUAL) {
      if (name.type() == IDENT
          && (after.type() == OQUOTE || after.type() == LBRACE || after.type() == IDENT)) {
        diags.error(
            "Argument definition required",
            "A single-line block definition can contain only a single argument. If you meant to"
                + " define argument \""
                + name.text()
                + "\", use an equals sign to assign it a value. To define a nested block, place it"
                + " on a line of its own within its parent block.",
            name.range().to(after.range()));
      } else {
        diags.error(
            "Argument or block definition required",
            "An argument or block definition is required here, but found "
                + (name.type() == IDENT ? after : name).describe()
                + ". To set an argument, write name = value.",
            name.range());
      }
      return skipToClose(open);
    }
    in.next();
    in.next();
    int savedNl = in.newlineDepth();
    Expression e;
    try {
      e = expressions.parseExpr();
    } catch (TokenCursor.Bail b) {
      // the error is reported; skip the rest of this block, as parseBody would
      while (in.newlineDepth() > savedNl) {
        in.popNewlines();
      }
      return skipToClose(open);
    }
    Body.Attribute attr =
        new Body.Attribute(name.text(), e, name.range(), name.range().to(e.range()));
    Token t = in.peek();
    switch (t.type()) {
      case RBRACE -> {
        Token close = in.next();
        return new Body(List.of(attr), open.range().to(close.range()));
      }
      case EOF -> {
        diags.error(
            "Unclosed configuration block",
            "There is no closing brace for this block before the end of the file. Add a \"}\" to"
                + " close it; this may also be caused by incorrect brace nesting elsewhere in the"
                + " file.",
            open.range());
        return new Body(List.of(attr), open.range().to(in.last().range()));
      }
      case COMMA ->
          diags.error(
              "Invalid single-argument block definition",
              "Single-line block syntax can include only one argument definition. To define"
                  + " multiple arguments, use the multi-line block syntax with one argument"
                  + " definition per line.",
              t.range());
      case NEWLINE ->
          diags.error(
              "Invalid single-argument block definition",
              "An argument definition on the same line as its containing block creates a"
                  + " single-line block definition, which must also be closed on the same line."
                  + " Place the block's closing brace immediately after the argument definition.",
              t.range());
      default ->
          diags.error(
              "Invalid single-argument block definition",
              "A single-line block definition must end with a closing brace immediately after its"
                  + " single argument definition, but found "
                  + t.describe()
                  + ".",
              t.range());
    }
    return skipToClose(open);
  }

  /** Skips past the "}" matching {@code open} (or to the end of the file). */
  private Body skipToClose(Token open) {
    in.skipPastClose();
    return new Body(List.of(), open.range().to(in.last().range()));
  }

  private void expectItemEnd(String what) {
    Token t = in.peek();
    switch (t.type()) {
      case NEWLINE -> in.next();
      case EOF -> {}
      // as in HCL, "}" too: a multi-line block's "}" goes on its own line (b {\n x = 1 } is
      // invalid)
      default ->
          throw in.fail(
              "Missing newline after " + what,
              "An "
                  + what
                  + " definition must end with a newline, but found "
                  + t.describe()
                  + ". Put the next item on its own line.",
              t.range());
    }
  }
}
