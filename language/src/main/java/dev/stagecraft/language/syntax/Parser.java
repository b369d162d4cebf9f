package dev.stagecraft.language.syntax;

import static dev.stagecraft.language.syntax.TokenType.*;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import java.math.BigDecimal;
import java.text.BreakIterator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recursive-descent parser for HCL native syntax producing an immutable AST with source ranges.
 *
 * <p>Errors are reported as diagnostics. Inside a body the parser recovers at the end of the
 * offending line (or at the closing brace of the enclosing block), so one pass reports several
 * problems. The public entry points never throw for any input.
 */
public final class Parser {
  private static final int MAX_DEPTH = 200;

  /** Thrown internally to abandon the current body item; never escapes the parser. */
  private static final class Bail extends RuntimeException {
    Bail() {
      super(null, null, false, false);
    }
  }

  private final String file;
  private final List<Token> toks;
  private final Diagnostics diags;
  private final Deque<Boolean> newlines = new ArrayDeque<>();
  private int pos;
  private int depth;
  private Token last;

  private Parser(String file, List<Token> toks, Diagnostics diags) {
    this.file = file;
    this.toks = toks;
    this.diags = diags;
    this.last = toks.get(0);
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
      p.newlines.push(false);
      Expression e = p.parseExpr();
      Token t = p.peek();
      if (t.type() != EOF) {
        d.error(
            "Extra characters after expression",
            "Expected the end of the expression, but found " + t.describe() + ".",
            t.range());
      }
      return new ExpressionResult(e, d);
    } catch (Bail b) {
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
      List<Raw> raws = p.parseTemplateItems(HEREDOC_END, true);
      Token close = p.next();
      SourceRange r = new SourceRange(file, start, close.range().end());
      return new ExpressionResult(new Expression.Template(p.build(raws, false), false, r), d);
    } catch (Bail b) {
      return new ExpressionResult(null, d);
    } catch (RuntimeException | StackOverflowError e) {
      d.error(
          "Internal parser error",
          "The parser failed unexpectedly (" + e + "). This is a bug; please report it.",
          new SourceRange(file, start, start));
      return new ExpressionResult(null, d);
    }
  }

  // ---------------------------------------------------------------- token access

  private boolean newlinesSignificant() {
    return newlines.isEmpty() || newlines.peek();
  }

  private Token peek() {
    return peekAt(0);
  }

  private Token peekAt(int k) {
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

  private Token next() {
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

  private Bail fail(String summary, String detail, SourceRange range) {
    diags.error(summary, detail, range);
    return new Bail();
  }

  private Token expect(TokenType type, String summary, String detail) {
    Token t = peek();
    if (t.type() != type) {
      throw fail(summary, detail + " Found " + t.describe() + " instead.", t.range());
    }
    return next();
  }

  private boolean isKeyword(Token t, String kw) {
    return t.type() == IDENT && t.text().equals(kw);
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      depth = 0;
      throw fail(
          "Nesting too deep",
          "Expressions and blocks may be nested at most " + MAX_DEPTH + " levels deep.",
          peek().range());
    }
  }

  // ---------------------------------------------------------------- bodies

  private Body parseBody(Token open) {
    List<Body.BodyItem> items = new ArrayList<>();
    Map<String, Body.Attribute> seen = new HashMap<>();
    SourcePos start = open == null ? toks.get(0).start() : open.start();
    newlines.push(true);
    int savedNl = newlines.size();
    loop:
    while (true) {
      Token t = peek();
      switch (t.type()) {
        case NEWLINE -> next();
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
          next();
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
          } catch (Bail b) {
            while (newlines.size() > savedNl) {
              newlines.pop();
            }
            recoverToLineEnd();
          }
        }
        default -> {
          diags.error(
              "Argument or block definition required",
              "An argument or block definition is required here, but found "
                  + t.describe()
                  + ". To set an argument, write name = value; a block is type \"label\" { ... }.",
              t.range());
          recoverToLineEnd();
        }
      }
    }
    newlines.pop();
    SourcePos end = last.end().offset() >= start.offset() ? last.end() : start;
    return new Body(items, new SourceRange(file, start, end));
  }

  /** Skips to the end of the current line at bracket depth zero, or to an unmatched "}". */
  private void recoverToLineEnd() {
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

  private Body.BodyItem parseItem() {
    Token name = next();
    Token t = peek();
    if (t.type() == EQUAL) {
      next();
      Expression e = parseExpr();
      expectItemEnd("argument");
      return new Body.Attribute(name.text(), e, name.range(), name.range().to(e.range()));
    }
    List<String> labels = new ArrayList<>();
    List<SourceRange> labelRanges = new ArrayList<>();
    while (peek().type() == OQUOTE || peek().type() == IDENT) {
      if (peek().type() == IDENT) {
        Token l = next();
        labels.add(l.text());
        labelRanges.add(l.range());
      } else {
        Token oq = next();
        StringBuilder sb = new StringBuilder();
        while (peek().type() == TEMPLATE_LIT) {
          sb.append(decodeQuoted(next()));
        }
        if (peek().type() != CQUOTE) {
          throw fail(
              "Invalid block label",
              "Block labels must be literal strings; template sequences (${...}, %{...}) are not"
                  + " allowed here.",
              peek().range());
        }
        Token cq = next();
        labels.add(sb.toString());
        labelRanges.add(oq.range().to(cq.range()));
      }
    }
    if (peek().type() == LBRACE) {
      Token open = next();
      enter();
      TokenType first = peek().type();
      Body body =
          first == NEWLINE || first == EOF || first == RBRACE
              ? parseBody(open)
              : parseSingleAttrBody(open);
      depth--;
      SourceRange range = name.range().to(last.range());
      expectItemEnd("block");
      return new Body.Block(name.text(), labels, labelRanges, body, name.range(), range);
    }
    Token bad = peek();
    if (labels.isEmpty() && (bad.type() == NEWLINE || bad.type() == EOF)) {
      throw fail(
          "Argument or block definition required",
          "An argument or block definition is required here. To set an argument, use the equals"
              + " sign \"=\" to introduce the argument value: "
              + name.text()
              + " = <value>.",
          name.range());
    }
    if (labels.isEmpty() && bad.type() == COLON) {
      throw fail(
          "Invalid argument definition",
          "Arguments are set with \"=\", not \":\". Write " + name.text() + " = <value>.",
          bad.range());
    }
    throw fail(
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
    Token name = peek();
    Token after = peekAt(1);
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
    next();
    next();
    int savedNl = newlines.size();
    Expression e;
    try {
      e = parseExpr();
    } catch (Bail b) {
      // the error is reported; skip the rest of this block, as parseBody would
      while (newlines.size() > savedNl) {
        newlines.pop();
      }
      return skipToClose(open);
    }
    Body.Attribute attr =
        new Body.Attribute(name.text(), e, name.range(), name.range().to(e.range()));
    Token t = peek();
    switch (t.type()) {
      case RBRACE -> {
        Token close = next();
        return new Body(List.of(attr), open.range().to(close.range()));
      }
      case EOF -> {
        diags.error(
            "Unclosed configuration block",
            "There is no closing brace for this block before the end of the file. Add a \"}\" to"
                + " close it; this may also be caused by incorrect brace nesting elsewhere in the"
                + " file.",
            open.range());
        return new Body(List.of(attr), open.range().to(last.range()));
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
    return new Body(List.of(), open.range().to(last.range()));
  }

  private void expectItemEnd(String what) {
    Token t = peek();
    switch (t.type()) {
      case NEWLINE -> next();
      case EOF -> {}
      // as in HCL, "}" too: a multi-line block's "}" goes on its own line (b {\n x = 1 } is
      // invalid)
      default ->
          throw fail(
              "Missing newline after " + what,
              "An "
                  + what
                  + " definition must end with a newline, but found "
                  + t.describe()
                  + ". Put the next item on its own line.",
              t.range());
    }
  }

  // ---------------------------------------------------------------- expressions

  private Expression parseExpr() {
    enter();
    try {
      return parseTernary();
    } finally {
      depth--;
    }
  }

  private Expression parseTernary() {
    Expression cond = parseBinary(1);
    if (peek().type() == QUESTION) {
      next();
      Expression t = parseExpr();
      expect(
          COLON,
          "Missing false expression in conditional",
          "The conditional operator (...?...:...) requires a false expression, delimited by a"
              + " colon.");
      Expression f = parseExpr();
      return new Expression.Conditional(cond, t, f, cond.range().to(f.range()));
    }
    return cond;
  }

  private static Expression.BinaryOp binaryOp(TokenType t) {
    return switch (t) {
      case OR -> Expression.BinaryOp.OR;
      case AND -> Expression.BinaryOp.AND;
      case EQEQ -> Expression.BinaryOp.EQ;
      case NOTEQ -> Expression.BinaryOp.NE;
      case LT -> Expression.BinaryOp.LT;
      case LE -> Expression.BinaryOp.LE;
      case GT -> Expression.BinaryOp.GT;
      case GE -> Expression.BinaryOp.GE;
      case PLUS -> Expression.BinaryOp.ADD;
      case MINUS -> Expression.BinaryOp.SUB;
      case STAR -> Expression.BinaryOp.MUL;
      case SLASH -> Expression.BinaryOp.DIV;
      case PERCENT -> Expression.BinaryOp.MOD;
      default -> null;
    };
  }

  private Expression parseBinary(int minPrec) {
    Expression left = parseUnary();
    while (true) {
      Expression.BinaryOp op = binaryOp(peek().type());
      if (op == null || op.precedence < minPrec) {
        return left;
      }
      next();
      enter();
      Expression right;
      try {
        right = parseBinary(op.precedence + 1);
      } finally {
        depth--;
      }
      left = new Expression.Binary(op, left, right, left.range().to(right.range()));
    }
  }

  private Expression parseUnary() {
    Token t = peek();
    if (t.type() == MINUS || t.type() == BANG) {
      next();
      enter();
      Expression operand;
      try {
        operand = parseUnary();
      } finally {
        depth--;
      }
      SourceRange r = t.range().to(operand.range());
      if (t.type() == MINUS
          && operand instanceof Expression.Literal l
          && l.value() instanceof BigDecimal n) {
        return new Expression.Literal(n.negate(), r);
      }
      return new Expression.Unary(
          t.type() == MINUS ? Expression.UnaryOp.NEGATE : Expression.UnaryOp.NOT, operand, r);
    }
    return parsePostfix(parsePrimary());
  }

  private Expression parsePostfix(Expression e) {
    while (true) {
      Token t = peek();
      if (t.type() == DOT) {
        Token after = peekAt(1);
        if (after.type() == IDENT) {
          next();
          next();
          e = addStep(e, new Traversal.Attr(after.text(), t.range().to(after.range())));
        } else if (after.type() == NUMBER) {
          next();
          next();
          for (Traversal.Step s : legacyIndex(t, after)) {
            e = addStep(e, s);
          }
        } else if (after.type() == STAR) {
          next();
          next();
          e = parseSplat(e, true);
        } else {
          throw fail(
              "Invalid attribute name",
              "An attribute name is required after a dot, but found " + after.describe() + ".",
              after.range());
        }
      } else if (t.type() == LBRACK) {
        Token open = next();
        newlines.push(false);
        if (peek().type() == STAR && peekAt(1).type() == RBRACK) {
          next();
          next();
          newlines.pop();
          e = parseSplat(e, false);
          continue;
        }
        Expression key = parseExpr();
        Token close =
            expect(
                RBRACK,
                "Missing close bracket on index",
                "The index operator must end with a closing bracket (\"]\").");
        newlines.pop();
        Object lit = literalKey(key);
        if (lit != null) {
          e = addStep(e, new Traversal.Key(lit, open.range().to(close.range())));
        } else {
          e = new Expression.Index(e, key, e.range().to(close.range()));
        }
      } else {
        return e;
      }
    }
  }

  private static Object literalKey(Expression key) {
    if (key instanceof Expression.Literal l
        && (l.value() instanceof BigDecimal || l.value() instanceof String)) {
      return l.value();
    }
    if (key instanceof Expression.Template tpl && tpl.isLiteral()) {
      return tpl.literalText();
    }
    return null;
  }

  private List<Traversal.Step> legacyIndex(Token dot, Token num) {
    List<Traversal.Step> steps = new ArrayList<>();
    int dot2 = num.text().indexOf('.');
    if (dot2 >= 0) {
      // x.0.1 lexes as x . 0.1: HCL rejects chained legacy indexes rather than guessing
      throw fail(
          "Invalid legacy index syntax",
          "When using the legacy index syntax, chaining two indexes together is not permitted. Use"
              + " the proper index syntax instead, like ["
              + num.text().substring(0, dot2)
              + "]["
              + num.text().substring(dot2 + 1)
              + "].",
          num.range());
    }
    // any other number token is the index, as in HCL (x.1e0 is x[1])
    steps.add(new Traversal.Key(new BigDecimal(num.text()), dot.range().to(num.range())));
    return steps;
  }

  private Expression addStep(Expression e, Traversal.Step step) {
    if (e instanceof Expression.ScopeTraversal st) {
      Traversal t = st.traversal();
      List<Traversal.Step> steps = new ArrayList<>(t.steps());
      steps.add(step);
      return new Expression.ScopeTraversal(
          new Traversal(t.root(), t.rootRange(), steps, t.range().to(step.range())));
    }
    if (e instanceof Expression.RelativeTraversal rt) {
      List<Traversal.Step> steps = new ArrayList<>(rt.steps());
      steps.add(step);
      return new Expression.RelativeTraversal(rt.source(), steps, rt.range().to(step.range()));
    }
    return new Expression.RelativeTraversal(e, List.of(step), e.range().to(step.range()));
  }

  private Expression parseSplat(Expression source, boolean attrSplat) {
    List<Traversal.Step> each = new ArrayList<>();
    SourceRange range = source.range().to(last.range());
    while (true) {
      Token t = peek();
      Token after = peekAt(1);
      if (t.type() == DOT && after.type() == IDENT) {
        next();
        next();
        each.add(new Traversal.Attr(after.text(), t.range().to(after.range())));
      } else if (!attrSplat && t.type() == DOT && after.type() == NUMBER) {
        next();
        next();
        each.addAll(legacyIndex(t, after));
      } else if (!attrSplat && t.type() == LBRACK && after.type() != STAR) {
        Token open = next();
        newlines.push(false);
        Expression key = parseExpr();
        Token close =
            expect(
                RBRACK,
                "Missing close bracket on index",
                "The index operator must end with a closing bracket (\"]\").");
        newlines.pop();
        Object lit = literalKey(key);
        if (lit == null) {
          throw fail(
              "Unsupported splat index",
              "Only literal indexes (e.g. [0] or [\"key\"]) may follow a splat operator; use a for"
                  + " expression for computed indexes.",
              key.range());
        }
        each.add(new Traversal.Key(lit, open.range().to(close.range())));
      } else {
        break;
      }
      range = range.to(last.range());
    }
    return new Expression.Splat(source, each, attrSplat, range);
  }

  private Expression parsePrimary() {
    Token t = peek();
    switch (t.type()) {
      case NUMBER -> {
        next();
        try {
          return new Expression.Literal(new BigDecimal(t.text()), t.range());
        } catch (NumberFormatException e) {
          throw fail("Invalid number literal", "\"" + t.text() + "\" is not a number.", t.range());
        }
      }
      case IDENT -> {
        next();
        switch (t.text()) {
          case "true" -> {
            return new Expression.Literal(Boolean.TRUE, t.range());
          }
          case "false" -> {
            return new Expression.Literal(Boolean.FALSE, t.range());
          }
          case "null" -> {
            return new Expression.Literal(null, t.range());
          }
          default -> {}
        }
        if (peek().type() == LPAREN || peek().type() == DOUBLE_COLON) {
          return parseCall(t);
        }
        return new Expression.ScopeTraversal(
            new Traversal(t.text(), t.range(), List.of(), t.range()));
      }
      case OQUOTE -> {
        return parseQuotedTemplate();
      }
      case HEREDOC_BEGIN -> {
        return parseHeredoc();
      }
      case LBRACK -> {
        return parseTuple();
      }
      case LBRACE -> {
        return parseObject();
      }
      case LPAREN -> {
        Token open = next();
        newlines.push(false);
        Expression inner = parseExpr();
        Token close =
            expect(
                RPAREN,
                "Unbalanced parentheses",
                "Expected a closing parenthesis to terminate the expression.");
        newlines.pop();
        return new Expression.Parens(inner, open.range().to(close.range()));
      }
      default ->
          throw fail(
              "Invalid expression",
              "Expected the start of an expression, but found " + t.describe() + ".",
              t.range());
    }
  }

  private Expression parseCall(Token first) {
    // a namespaced name (provider::aws::arn_parse, core::upper) is kept as one string with "::"
    StringBuilder fullName = new StringBuilder(first.text());
    SourceRange nameRange = first.range();
    while (peek().type() == DOUBLE_COLON) {
      next();
      Token part = peek();
      if (part.type() != IDENT) {
        throw fail(
            "Missing function name",
            "Function scope resolution symbol :: must be followed by a function name in this"
                + " scope, but found "
                + part.describe()
                + ".",
            part.range());
      }
      next();
      fullName.append("::").append(part.text());
      nameRange = nameRange.to(part.range());
    }
    if (peek().type() != LPAREN) {
      throw fail(
          "Missing open parenthesis",
          "Function selector must be followed by an open parenthesis to begin the function call,"
              + " but found "
              + peek().describe()
              + ".",
          peek().range());
    }
    Token name = new Token(IDENT, fullName.toString(), nameRange);
    Token open = next();
    newlines.push(false);
    List<Expression> args = new ArrayList<>();
    boolean expand = false;
    while (peek().type() != RPAREN) {
      if (peek().type() == EOF) {
        throw fail(
            "Unclosed function call",
            "There is no closing parenthesis for the call to " + name.text() + "(...).",
            open.range());
      }
      args.add(parseExpr());
      Token t = peek();
      if (t.type() == ELLIPSIS) {
        next();
        expand = true;
        if (peek().type() != RPAREN) {
          throw fail(
              "Missing closing parenthesis",
              "An expanded function argument (with ...) must be immediately followed by the"
                  + " closing parenthesis.",
              peek().range());
        }
        break;
      }
      if (t.type() == COMMA) {
        next();
      } else if (t.type() != RPAREN) {
        throw fail(
            "Missing argument separator",
            "A comma is required to separate each function argument from the next, but found "
                + t.describe()
                + ".",
            t.range());
      }
    }
    Token close = next();
    newlines.pop();
    return new Expression.FunctionCall(
        name.text(), args, expand, name.range(), name.range().to(close.range()));
  }

  private Expression parseTuple() {
    Token open = next();
    newlines.push(false);
    // as in HCL, "for" right after the bracket always starts a for expression
    if (isKeyword(peek(), "for")) {
      return parseFor(open, false);
    }
    List<Expression> elems = new ArrayList<>();
    while (peek().type() != RBRACK) {
      if (peek().type() == EOF) {
        throw fail(
            "Missing closing bracket",
            "There is no closing \"]\" for the list that starts here.",
            open.range());
      }
      elems.add(parseExpr());
      Token t = peek();
      if (t.type() == COMMA) {
        next();
      } else if (t.type() != RBRACK) {
        throw fail(
            "Missing item separator",
            "Expected a comma to mark the beginning of the next item, but found "
                + t.describe()
                + ".",
            t.range());
      }
    }
    Token close = next();
    newlines.pop();
    return new Expression.Tuple(elems, open.range().to(close.range()));
  }

  private Expression parseObject() {
    Token open = next();
    newlines.push(false);
    // as in HCL, "for" right after the brace always starts a for expression: { for = 1 } is an
    // invalid for expression, not an object with the key "for" (write { "for" = 1 } for that)
    boolean isFor = isKeyword(peek(), "for");
    if (isFor) {
      return parseFor(open, true);
    }
    newlines.pop();
    newlines.push(true);
    List<Expression.ObjectItem> items = new ArrayList<>();
    while (true) {
      while (peek().type() == NEWLINE) {
        next();
      }
      Token t = peek();
      if (t.type() == RBRACE) {
        break;
      }
      if (t.type() == EOF) {
        throw fail(
            "Unclosed object",
            "There is no closing \"}\" for the object that starts here.",
            open.range());
      }
      Expression key;
      if (t.type() == IDENT && (peekAt(1).type() == EQUAL || peekAt(1).type() == COLON)) {
        next();
        key = new Expression.Literal(t.text(), t.range());
      } else {
        key = parseExpr();
      }
      Token sep = peek();
      if (sep.type() != EQUAL && sep.type() != COLON) {
        throw fail(
            "Missing key/value separator",
            "Expected an equals sign (\"=\") to mark the beginning of the attribute value, but found "
                + sep.describe()
                + ".",
            sep.range());
      }
      next();
      Expression value = parseExpr();
      items.add(new Expression.ObjectItem(key, value));
      Token after = peek();
      if (after.type() == COMMA || after.type() == NEWLINE) {
        next();
      } else if (after.type() != RBRACE) {
        throw fail(
            "Missing attribute separator",
            "Expected a newline or comma to mark the beginning of the next attribute, but found "
                + after.describe()
                + ".",
            after.range());
      }
    }
    Token close = next();
    newlines.pop();
    return new Expression.ObjectCons(items, open.range().to(close.range()));
  }

  private Token expectIdent(String what) {
    Token t = peek();
    if (t.type() != IDENT) {
      throw fail(
          "Invalid 'for' expression",
          "Expected " + what + " (an identifier), but found " + t.describe() + ".",
          t.range());
    }
    return next();
  }

  private Expression parseFor(Token open, boolean isObject) {
    next(); // "for"
    Token v1 = expectIdent("an iteration variable name");
    String keyVar = null;
    String valueVar = v1.text();
    if (peek().type() == COMMA) {
      next();
      keyVar = v1.text();
      valueVar = expectIdent("a second iteration variable name").text();
    }
    if (!isKeyword(peek(), "in")) {
      throw fail(
          "Invalid 'for' expression",
          "The 'in' keyword is expected after the iteration variables, but found "
              + peek().describe()
              + ".",
          peek().range());
    }
    next();
    Expression coll = parseExpr();
    expect(
        COLON,
        "Invalid 'for' expression",
        "A colon is required after the collection expression (for x in xs : ...).");
    Expression keyExpr = null;
    if (isObject) {
      keyExpr = parseExpr();
      expect(
          FATARROW,
          "Invalid 'for' expression",
          "An object 'for' expression needs a key expression, \"=>\", and a value expression.");
    }
    Expression valueExpr = parseExpr();
    boolean grouping = false;
    if (peek().type() == ELLIPSIS) {
      Token el = next();
      if (!isObject) {
        throw fail(
            "Invalid 'for' expression",
            "The grouping operator \"...\" is only valid in an object 'for' expression.",
            el.range());
      }
      grouping = true;
    }
    Expression cond = null;
    if (isKeyword(peek(), "if")) {
      next();
      cond = parseExpr();
    }
    Token close =
        expect(
            isObject ? RBRACE : RBRACK,
            "Invalid 'for' expression",
            "Expected \"" + (isObject ? "}" : "]") + "\" to close the 'for' expression.");
    newlines.pop();
    return new Expression.ForExpr(
        keyVar, valueVar, coll, keyExpr, valueExpr, cond, grouping, open.range().to(close.range()));
  }

  // ---------------------------------------------------------------- templates

  private sealed interface Raw permits RLit, RInterp, RDir {
    SourceRange range();
  }

  private record RLit(StringBuilder text, SourceRange range) implements Raw {}

  private record RInterp(Expression expr, SourceRange range, boolean stripL, boolean stripR)
      implements Raw {}

  private enum DirKind {
    IF,
    ELSE,
    ENDIF,
    FOR,
    ENDFOR
  }

  private record RDir(
      DirKind kind,
      Expression expr,
      String keyVar,
      String valueVar,
      SourceRange range,
      boolean stripL,
      boolean stripR)
      implements Raw {}

  private Expression parseQuotedTemplate() {
    Token open = next();
    List<Raw> raws = parseTemplateItems(CQUOTE, false);
    Token close = next();
    return new Expression.Template(build(raws, false), false, open.range().to(close.range()));
  }

  private Expression parseHeredoc() {
    Token open = next();
    boolean flush = open.text().startsWith("<<-");
    List<Raw> raws = parseTemplateItems(HEREDOC_END, true);
    Token close = next();
    return new Expression.Template(build(raws, flush), true, open.range().to(close.range()));
  }

  private List<Raw> parseTemplateItems(TokenType end, boolean heredoc) {
    List<Raw> raws = new ArrayList<>();
    while (true) {
      Token t = peek();
      if (t.type() == end || t.type() == EOF) {
        break;
      }
      switch (t.type()) {
        case TEMPLATE_LIT -> {
          next();
          String text = heredoc ? decodeHeredoc(t.text()) : decodeQuoted(t);
          raws.add(new RLit(new StringBuilder(text), t.range()));
        }
        case TEMPLATE_INTERP -> {
          Token o = next();
          newlines.push(false);
          Expression e = parseExpr();
          Token c = expectSeqEnd(o);
          newlines.pop();
          raws.add(
              new RInterp(
                  e, o.range().to(c.range()), o.text().endsWith("~"), c.text().startsWith("~")));
        }
        case TEMPLATE_CONTROL -> raws.add(parseDirective());
        default ->
            throw fail(
                "Invalid template",
                "Unexpected " + t.describe() + " inside a string template.",
                t.range());
      }
    }
    return raws;
  }

  private Token expectSeqEnd(Token open) {
    Token t = peek();
    if (t.type() != TEMPLATE_SEQ_END) {
      throw fail(
          "Unclosed template sequence",
          "Expected \"}\" to close the template sequence that starts at "
              + open.range()
              + ", but found "
              + t.describe()
              + ".",
          t.range());
    }
    return next();
  }

  private RDir parseDirective() {
    Token o = next();
    newlines.push(false);
    Token kw = peek();
    if (kw.type() != IDENT) {
      throw fail(
          "Invalid template directive",
          "A template directive must be one of if, else, endif, for or endfor, but found "
              + kw.describe()
              + ".",
          kw.range());
    }
    next();
    DirKind kind;
    Expression expr = null;
    String keyVar = null;
    String valueVar = null;
    switch (kw.text()) {
      case "if" -> {
        kind = DirKind.IF;
        expr = parseExpr();
      }
      case "else" -> kind = DirKind.ELSE;
      case "endif" -> kind = DirKind.ENDIF;
      case "endfor" -> kind = DirKind.ENDFOR;
      case "for" -> {
        kind = DirKind.FOR;
        Token v1 = expectIdent("an iteration variable name");
        valueVar = v1.text();
        if (peek().type() == COMMA) {
          next();
          keyVar = v1.text();
          valueVar = expectIdent("a second iteration variable name").text();
        }
        if (!isKeyword(peek(), "in")) {
          throw fail(
              "Invalid template directive",
              "The 'in' keyword is expected after the iteration variables.",
              peek().range());
        }
        next();
        expr = parseExpr();
      }
      default ->
          throw fail(
              "Invalid template directive",
              "\""
                  + kw.text()
                  + "\" is not a template directive; use if, else, endif, for or endfor.",
              kw.range());
    }
    Token c = expectSeqEnd(o);
    newlines.pop();
    return new RDir(
        kind,
        expr,
        keyVar,
        valueVar,
        o.range().to(c.range()),
        o.text().endsWith("~"),
        c.text().startsWith("~"));
  }

  /**
   * Go's {@code unicode.IsSpace}, which HCL uses for strip markers and heredoc indentation: ASCII
   * {@code \t \n \v \f \r} and space, U+0085, U+00A0 and the other Unicode White_Space characters.
   */
  private static boolean isSpace(int c) {
    return switch (c) {
      case '\t',
          '\n',
          0x0B,
          '\f',
          '\r',
          ' ',
          0x85,
          0xA0,
          0x1680,
          0x2028,
          0x2029,
          0x202F,
          0x205F,
          0x3000 ->
          true;
      default -> c >= 0x2000 && c <= 0x200A;
    };
  }

  private static int leadingSpaces(CharSequence s) {
    int i = 0;
    while (i < s.length()) {
      int c = Character.codePointAt(s, i);
      if (!isSpace(c)) {
        break;
      }
      i += Character.charCount(c);
    }
    return i;
  }

  private static int trailingSpaces(CharSequence s) {
    int i = s.length();
    while (i > 0) {
      int c = Character.codePointBefore(s, i);
      if (!isSpace(c)) {
        break;
      }
      i -= Character.charCount(c);
    }
    return s.length() - i;
  }

  /**
   * Strips the whitespace the {@code ~} markers ask for: only from the directly adjacent literal.
   */
  private static void applyStripMarkers(List<Raw> raws) {
    for (int i = 0; i < raws.size(); i++) {
      Raw r = raws.get(i);
      boolean stripL = r instanceof RInterp ri ? ri.stripL() : r instanceof RDir d && d.stripL();
      boolean stripR = r instanceof RInterp ri ? ri.stripR() : r instanceof RDir d && d.stripR();
      if (stripL && i > 0 && raws.get(i - 1) instanceof RLit l) {
        l.text().setLength(l.text().length() - trailingSpaces(l.text()));
      }
      if (stripR && i + 1 < raws.size() && raws.get(i + 1) instanceof RLit l) {
        l.text().delete(0, leadingSpaces(l.text()));
      }
    }
  }

  /**
   * The {@code <<-} rule, as HCL applies it after the strip markers: a part is line-leading if it
   * is first or the literal before it ends with a newline. Each line-leading literal counts its
   * leading whitespace (in characters), except a whitespace-only line ending with a newline, which
   * is neither counted nor trimmed; a line-leading interpolation or directive counts as 0. The
   * smallest count is removed from every counted literal.
   */
  private static void dedent(List<Raw> raws) {
    int min = Integer.MAX_VALUE;
    boolean lineStart = true;
    List<RLit> adjust = new ArrayList<>();
    for (Raw r : raws) {
      if (lineStart) {
        lineStart = false;
        if (r instanceof RLit l) {
          String s = l.text().toString();
          int lead = leadingSpaces(s);
          if (!(lead == s.length() && s.endsWith("\n"))) {
            adjust.add(l);
            min = Math.min(min, graphemes(s, lead, Integer.MAX_VALUE));
          }
        } else {
          min = 0;
        }
      }
      if (r instanceof RLit l
          && l.text().length() > 0
          && l.text().charAt(l.text().length() - 1) == '\n') {
        lineStart = true;
      }
    }
    if (min == Integer.MAX_VALUE || min == 0) {
      return;
    }
    for (RLit l : adjust) {
      String s = l.text().toString();
      l.text().delete(0, graphemeEnd(s, min));
    }
  }

  /** The number of grapheme clusters in {@code s[0, end)}. */
  private static int graphemes(String s, int end, int limit) {
    BreakIterator it = BreakIterator.getCharacterInstance();
    it.setText(s);
    int n = 0;
    int b = it.first();
    while (n < limit && (b = it.next()) != BreakIterator.DONE && b <= end) {
      n++;
    }
    return n;
  }

  /** The index after the first {@code count} grapheme clusters of {@code s}. */
  private static int graphemeEnd(String s, int count) {
    BreakIterator it = BreakIterator.getCharacterInstance();
    it.setText(s);
    int b = 0;
    for (int i = 0; i < count; i++) {
      int nb = it.next();
      if (nb == BreakIterator.DONE) {
        break;
      }
      b = nb;
    }
    return b;
  }

  private List<TemplatePart> build(List<Raw> raws, boolean flush) {
    applyStripMarkers(raws);
    if (flush) {
      dedent(raws);
    }
    int[] idx = {0};
    List<TemplatePart> parts = seq(raws, idx, null);
    while (idx[0] < raws.size()) {
      Raw r = raws.get(idx[0]++);
      diags.error(
          "Unexpected template directive",
          "This "
              + ((RDir) r).kind().name().toLowerCase()
              + " directive has no matching opening %{ if } or %{ for }; remove it or add the"
              + " opening directive.",
          r.range());
      parts = new ArrayList<>(parts);
      parts.addAll(seq(raws, idx, null));
    }
    return parts;
  }

  private List<TemplatePart> seq(List<Raw> raws, int[] idx, DirKind context) {
    List<TemplatePart> out = new ArrayList<>();
    while (idx[0] < raws.size()) {
      Raw r = raws.get(idx[0]);
      switch (r) {
        case RLit l -> {
          idx[0]++;
          // a literal emptied by strip markers or dedent stays a part (HCL keeps it), so " ${~x~} "
          // is a string template, not a bare ${x}
          if (!out.isEmpty() && out.get(out.size() - 1) instanceof TemplatePart.Literal prev) {
            out.set(
                out.size() - 1,
                new TemplatePart.Literal(prev.text() + l.text(), prev.range().to(l.range())));
          } else {
            out.add(new TemplatePart.Literal(l.text().toString(), l.range()));
          }
        }
        case RInterp i -> {
          idx[0]++;
          out.add(new TemplatePart.Interpolation(i.expr(), i.range()));
        }
        case RDir d -> {
          switch (d.kind()) {
            case IF -> {
              idx[0]++;
              List<TemplatePart> thenParts = seq(raws, idx, DirKind.IF);
              List<TemplatePart> elseParts = List.of();
              if (at(raws, idx, DirKind.ELSE)) {
                idx[0]++;
                elseParts = seq(raws, idx, DirKind.ELSE);
              }
              SourceRange end = closing(raws, idx, DirKind.ENDIF, d, "%{ endif }");
              out.add(new TemplatePart.If(d.expr(), thenParts, elseParts, d.range().to(end)));
            }
            case FOR -> {
              idx[0]++;
              List<TemplatePart> body = seq(raws, idx, DirKind.FOR);
              SourceRange end = closing(raws, idx, DirKind.ENDFOR, d, "%{ endfor }");
              out.add(
                  new TemplatePart.For(
                      d.keyVar(), d.valueVar(), d.expr(), body, d.range().to(end)));
            }
            default -> {
              if (context != null) {
                return out;
              }
              return out; // top level: caller reports the stray directive
            }
          }
        }
      }
    }
    return out;
  }

  private static boolean at(List<Raw> raws, int[] idx, DirKind kind) {
    return idx[0] < raws.size() && raws.get(idx[0]) instanceof RDir d && d.kind() == kind;
  }

  private SourceRange closing(List<Raw> raws, int[] idx, DirKind kind, RDir open, String text) {
    if (at(raws, idx, kind)) {
      return raws.get(idx[0]++).range();
    }
    diags.error(
        "Unterminated template directive",
        "The %{ "
            + open.kind().name().toLowerCase()
            + " } directive that starts here has no matching "
            + text
            + ". Add it where the directive's content ends.",
        open.range());
    return open.range();
  }

  // ---------------------------------------------------------------- escapes

  private static String decodeHeredoc(String raw) {
    return raw.replace("$${", "${").replace("%%{", "%{");
  }

  private String decodeQuoted(Token t) {
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
