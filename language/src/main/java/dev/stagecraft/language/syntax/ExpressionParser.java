package dev.stagecraft.language.syntax;

import static dev.stagecraft.language.syntax.TokenType.*;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Expressions by precedence climbing, as hclsyntax's {@code parseExpression} reads them:
 * conditionals, binary and unary operators, traversals and splats, calls, tuples, objects and
 * {@code for} expressions. String templates and heredocs are handed to the {@link TemplateParser},
 * whose interpolations come back here.
 */
final class ExpressionParser {
  private final TokenCursor in;
  private final String file;
  private final Diagnostics diags;
  private final TemplateParser templates;

  ExpressionParser(TokenCursor in, String file, Diagnostics diags, StringLiterals strings) {
    this.in = in;
    this.file = file;
    this.diags = diags;
    this.templates = new TemplateParser(in, this, file, diags, strings);
  }

  TemplateParser templates() {
    return templates;
  }

  Expression parseExpr() {
    in.enter();
    try {
      return parseTernary();
    } finally {
      in.leave();
    }
  }

  private Expression parseTernary() {
    Expression cond = parseBinary(1);
    if (in.peek().type() == QUESTION) {
      in.next();
      Expression t = parseExpr();
      in.expect(
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
      Expression.BinaryOp op = binaryOp(in.peek().type());
      if (op == null || op.precedence < minPrec) {
        return left;
      }
      in.next();
      in.enter();
      Expression right;
      try {
        right = parseBinary(op.precedence + 1);
      } finally {
        in.leave();
      }
      left = new Expression.Binary(op, left, right, left.range().to(right.range()));
    }
  }

  private Expression parseUnary() {
    Token t = in.peek();
    if (t.type() == MINUS || t.type() == BANG) {
      in.next();
      in.enter();
      Expression operand;
      try {
        operand = parseUnary();
      } finally {
        in.leave();
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
      Token t = in.peek();
      if (t.type() == DOT) {
        Token after = in.peekAt(1);
        if (after.type() == IDENT) {
          in.next();
          in.next();
          e = addStep(e, new Traversal.Attr(after.text(), t.range().to(after.range())));
        } else if (after.type() == NUMBER) {
          in.next();
          in.next();
          for (Traversal.Step s : legacyIndex(t, after)) {
            e = addStep(e, s);
          }
        } else if (after.type() == STAR) {
          in.next();
          in.next();
          e = parseSplat(e, true);
        } else {
          throw in.fail(
              "Invalid attribute name",
              "An attribute name is required after a dot, but found " + after.describe() + ".",
              after.range());
        }
      } else if (t.type() == LBRACK) {
        Token open = in.next();
        in.pushNewlines(false);
        if (in.peek().type() == STAR && in.peekAt(1).type() == RBRACK) {
          in.next();
          in.next();
          in.popNewlines();
          e = parseSplat(e, false);
          continue;
        }
        Expression key = parseExpr();
        Token close =
            in.expect(
                RBRACK,
                "Missing close bracket on index",
                "The index operator must end with a closing bracket (\"]\").");
        in.popNewlines();
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
      throw in.fail(
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
    SourceRange range = source.range().to(in.last().range());
    while (true) {
      Token t = in.peek();
      Token after = in.peekAt(1);
      if (t.type() == DOT && after.type() == IDENT) {
        in.next();
        in.next();
        each.add(new Traversal.Attr(after.text(), t.range().to(after.range())));
      } else if (!attrSplat && t.type() == DOT && after.type() == NUMBER) {
        in.next();
        in.next();
        each.addAll(legacyIndex(t, after));
      } else if (!attrSplat && t.type() == LBRACK && after.type() != STAR) {
        Token open = in.next();
        in.pushNewlines(false);
        Expression key = parseExpr();
        Token close =
            in.expect(
                RBRACK,
                "Missing close bracket on index",
                "The index operator must end with a closing bracket (\"]\").");
        in.popNewlines();
        Object lit = literalKey(key);
        if (lit == null) {
          throw in.fail(
              "Unsupported splat index",
              "Only literal indexes (e.g. [0] or [\"key\"]) may follow a splat operator; use a for"
                  + " expression for computed indexes.",
              key.range());
        }
        each.add(new Traversal.Key(lit, open.range().to(close.range())));
      } else {
        break;
      }
      range = range.to(in.last().range());
    }
    return new Expression.Splat(source, each, attrSplat, range);
  }

  private Expression parsePrimary() {
    Token t = in.peek();
    switch (t.type()) {
      case NUMBER -> {
        in.next();
        try {
          return new Expression.Literal(new BigDecimal(t.text()), t.range());
        } catch (NumberFormatException e) {
          throw in.fail(
              "Invalid number literal", "\"" + t.text() + "\" is not a number.", t.range());
        }
      }
      case IDENT -> {
        in.next();
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
        if (in.peek().type() == LPAREN || in.peek().type() == DOUBLE_COLON) {
          return parseCall(t);
        }
        return new Expression.ScopeTraversal(
            new Traversal(t.text(), t.range(), List.of(), t.range()));
      }
      case OQUOTE -> {
        return templates.parseQuoted();
      }
      case HEREDOC_BEGIN -> {
        return templates.parseHeredoc();
      }
      case LBRACK -> {
        return parseTuple();
      }
      case LBRACE -> {
        return parseObject();
      }
      case LPAREN -> {
        Token open = in.next();
        in.pushNewlines(false);
        Expression inner = parseExpr();
        Token close =
            in.expect(
                RPAREN,
                "Unbalanced parentheses",
                "Expected a closing parenthesis to terminate the expression.");
        in.popNewlines();
        return new Expression.Parens(inner, open.range().to(close.range()));
      }
      default ->
          throw in.fail(
              "Invalid expression",
              "Expected the start of an expression, but found " + t.describe() + ".",
              t.range());
    }
  }

  private Expression parseCall(Token first) {
    // a namespaced name (provider::aws::arn_parse, core::upper) is kept as one string with "::"
    StringBuilder fullName = new StringBuilder(first.text());
    SourceRange nameRange = first.range();
    while (in.peek().type() == DOUBLE_COLON) {
      in.next();
      Token part = in.peek();
      if (part.type() != IDENT) {
        throw in.fail(
            "Missing function name",
            "Function scope resolution symbol :: must be followed by a function name in this"
                + " scope, but found "
                + part.describe()
                + ".",
            part.range());
      }
      in.next();
      fullName.append("::").append(part.text());
      nameRange = nameRange.to(part.range());
    }
    if (in.peek().type() != LPAREN) {
      throw in.fail(
          "Missing open parenthesis",
          "Function selector must be followed by an open parenthesis to begin the function call,"
              + " but found "
              + in.peek().describe()
              + ".",
          in.peek().range());
    }
    Token name = new Token(IDENT, fullName.toString(), nameRange);
    Token open = in.next();
    in.pushNewlines(false);
    List<Expression> args = new ArrayList<>();
    boolean expand = false;
    while (in.peek().type() != RPAREN) {
      if (in.peek().type() == EOF) {
        throw in.fail(
            "Unclosed function call",
            "There is no closing parenthesis for the call to " + name.text() + "(...).",
            open.range());
      }
      args.add(parseExpr());
      Token t = in.peek();
      if (t.type() == ELLIPSIS) {
        in.next();
        expand = true;
        if (in.peek().type() != RPAREN) {
          throw in.fail(
              "Missing closing parenthesis",
              "An expanded function argument (with ...) must be immediately followed by the"
                  + " closing parenthesis.",
              in.peek().range());
        }
        break;
      }
      if (t.type() == COMMA) {
        in.next();
      } else if (t.type() != RPAREN) {
        throw in.fail(
            "Missing argument separator",
            "A comma is required to separate each function argument from the next, but found "
                + t.describe()
                + ".",
            t.range());
      }
    }
    Token close = in.next();
    in.popNewlines();
    return new Expression.FunctionCall(
        name.text(), args, expand, name.range(), name.range().to(close.range()));
  }

  private Expression parseTuple() {
    Token open = in.next();
    in.pushNewlines(false);
    // as in HCL, "for" right after the bracket always starts a for expression
    if (in.isKeyword(in.peek(), "for")) {
      return parseFor(open, false);
    }
    List<Expression> elems = new ArrayList<>();
    while (in.peek().type() != RBRACK) {
      if (in.peek().type() == EOF) {
        throw in.fail(
            "Missing closing bracket",
            "There is no closing \"]\" for the list that starts here.",
            open.range());
      }
      elems.add(parseExpr());
      Token t = in.peek();
      if (t.type() == COMMA) {
        in.next();
      } else if (t.type() != RBRACK) {
        throw in.fail(
            "Missing item separator",
            "Expected a comma to mark the beginning of the next item, but found "
                + t.describe()
                + ".",
            t.range());
      }
    }
    Token close = in.next();
    in.popNewlines();
    return new Expression.Tuple(elems, open.range().to(close.range()));
  }

  private Expression parseObject() {
    Token open = in.next();
    in.pushNewlines(false);
    // as in HCL, "for" right after the brace always starts a for expression: { for = 1 } is an
    // invalid for expression, not an object with the key "for" (write { "for" = 1 } for that)
    boolean isFor = in.isKeyword(in.peek(), "for");
    if (isFor) {
      return parseFor(open, true);
    }
    in.popNewlines();
    in.pushNewlines(true);
    List<Expression.ObjectItem> items = new ArrayList<>();
    while (true) {
      while (in.peek().type() == NEWLINE) {
        in.next();
      }
      Token t = in.peek();
      if (t.type() == RBRACE) {
        break;
      }
      if (t.type() == EOF) {
        throw in.fail(
            "Unclosed object",
            "There is no closing \"}\" for the object that starts here.",
            open.range());
      }
      Expression key;
      if (t.type() == IDENT && (in.peekAt(1).type() == EQUAL || in.peekAt(1).type() == COLON)) {
        in.next();
        key = new Expression.Literal(t.text(), t.range());
      } else {
        key = parseExpr();
      }
      Token sep = in.peek();
      if (sep.type() != EQUAL && sep.type() != COLON) {
        throw in.fail(
            "Missing key/value separator",
            "Expected an equals sign (\"=\") to mark the beginning of the attribute value, but found "
                + sep.describe()
                + ".",
            sep.range());
      }
      in.next();
      Expression value = parseExpr();
      items.add(new Expression.ObjectItem(key, value));
      Token after = in.peek();
      if (after.type() == COMMA || after.type() == NEWLINE) {
        in.next();
      } else if (after.type() != RBRACE) {
        throw in.fail(
            "Missing attribute separator",
            "Expected a newline or comma to mark the beginning of the next attribute, but found "
                + after.describe()
                + ".",
            after.range());
      }
    }
    Token close = in.next();
    in.popNewlines();
    return new Expression.ObjectCons(items, open.range().to(close.range()));
  }

  Token expectIdent(String what) {
    Token t = in.peek();
    if (t.type() != IDENT) {
      throw in.fail(
          "Invalid 'for' expression",
          "Expected " + what + " (an identifier), but found " + t.describe() + ".",
          t.range());
    }
    return in.next();
  }

  private Expression parseFor(Token open, boolean isObject) {
    in.next(); // "for"
    Token v1 = expectIdent("an iteration variable name");
    String keyVar = null;
    String valueVar = v1.text();
    if (in.peek().type() == COMMA) {
      in.next();
      keyVar = v1.text();
      valueVar = expectIdent("a second iteration variable name").text();
    }
    if (!in.isKeyword(in.peek(), "in")) {
      throw in.fail(
          "Invalid 'for' expression",
          "The 'in' keyword is expected after the iteration variables, but found "
              + in.peek().describe()
              + ".",
          in.peek().range());
    }
    in.next();
    Expression coll = parseExpr();
    in.expect(
        COLON,
        "Invalid 'for' expression",
        "A colon is required after the collection expression (for x in xs : ...).");
    Expression keyExpr = null;
    if (isObject) {
      keyExpr = parseExpr();
      in.expect(
          FATARROW,
          "Invalid 'for' expression",
          "An object 'for' expression needs a key expression, \"=>\", and a value expression.");
    }
    Expression valueExpr = parseExpr();
    boolean grouping = false;
    if (in.peek().type() == ELLIPSIS) {
      Token el = in.next();
      if (!isObject) {
        throw in.fail(
            "Invalid 'for' expression",
            "The grouping operator \"...\" is only valid in an object 'for' expression.",
            el.range());
      }
      grouping = true;
    }
    Expression cond = null;
    if (in.isKeyword(in.peek(), "if")) {
      in.next();
      cond = parseExpr();
    }
    Token close =
        in.expect(
            isObject ? RBRACE : RBRACK,
            "Invalid 'for' expression",
            "Expected \"" + (isObject ? "}" : "]") + "\" to close the 'for' expression.");
    in.popNewlines();
    return new Expression.ForExpr(
        keyVar, valueVar, coll, keyExpr, valueExpr, cond, grouping, open.range().to(close.range()));
  }
}
