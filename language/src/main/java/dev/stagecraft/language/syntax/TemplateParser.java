package dev.stagecraft.language.syntax;

import static dev.stagecraft.language.syntax.TokenType.*;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.List;

/**
 * The template half of the parser, as hclsyntax's {@code parser_template.go} splits it: quoted
 * strings, heredocs and bare templates, their {@code ${ }} interpolations and {@code %{ }}
 * directives, the {@code ~} strip markers and the {@code <<-} indentation rule.
 *
 * <p>Template items are read from the shared {@link TokenCursor} (interpolations and directive
 * arguments are ordinary expressions), then folded into the nested {@link TemplatePart} tree.
 * Unbalanced directives are reported as diagnostics; the tree is built from what was found.
 */
final class TemplateParser {
  private final TokenCursor in;
  private final ExpressionParser exprs;
  private final String file;
  private final Diagnostics diags;
  private final StringLiterals strings;

  TemplateParser(
      TokenCursor in,
      ExpressionParser exprs,
      String file,
      Diagnostics diags,
      StringLiterals strings) {
    this.in = in;
    this.exprs = exprs;
    this.file = file;
    this.diags = diags;
    this.strings = strings;
  }

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

  /**
   * Parses the whole token stream as a bare template (see {@link Parser#parseTemplate}); {@code
   * start} is where its text begins.
   */
  Expression parseBare(SourcePos start) {
    List<Raw> raws = parseTemplateItems(HEREDOC_END, true);
    Token close = in.next();
    SourceRange r = new SourceRange(file, start, close.range().end());
    return new Expression.Template(build(raws, false), false, r);
  }

  /** Parses a quoted string template; the current token is its opening quote. */
  Expression parseQuoted() {
    Token open = in.next();
    List<Raw> raws = parseTemplateItems(CQUOTE, false);
    Token close = in.next();
    return new Expression.Template(build(raws, false), false, open.range().to(close.range()));
  }

  /** Parses a heredoc template; the current token is its {@code <<EOT} or {@code <<-EOT}. */
  Expression parseHeredoc() {
    Token open = in.next();
    boolean flush = open.text().startsWith("<<-");
    List<Raw> raws = parseTemplateItems(HEREDOC_END, true);
    Token close = in.next();
    return new Expression.Template(build(raws, flush), true, open.range().to(close.range()));
  }

  private List<Raw> parseTemplateItems(TokenType end, boolean heredoc) {
    List<Raw> raws = new ArrayList<>();
    while (true) {
      Token t = in.peek();
      if (t.type() == end || t.type() == EOF) {
        break;
      }
      switch (t.type()) {
        case TEMPLATE_LIT -> {
          in.next();
          String text = heredoc ? StringLiterals.decodeHeredoc(t.text()) : strings.decodeQuoted(t);
          raws.add(new RLit(new StringBuilder(text), t.range()));
        }
        case TEMPLATE_INTERP -> {
          Token o = in.next();
          in.pushNewlines(false);
          Expression e = exprs.parseExpr();
          Token c = expectSeqEnd(o);
          in.popNewlines();
          raws.add(
              new RInterp(
                  e, o.range().to(c.range()), o.text().endsWith("~"), c.text().startsWith("~")));
        }
        case TEMPLATE_CONTROL -> raws.add(parseDirective());
        default ->
            throw in.fail(
                "Invalid template",
                "Unexpected " + t.describe() + " inside a string template.",
                t.range());
      }
    }
    return raws;
  }

  private Token expectSeqEnd(Token open) {
    Token t = in.peek();
    if (t.type() != TEMPLATE_SEQ_END) {
      throw in.fail(
          "Unclosed template sequence",
          "Expected \"}\" to close the template sequence that starts at "
              + open.range()
              + ", but found "
              + t.describe()
              + ".",
          t.range());
    }
    return in.next();
  }

  private RDir parseDirective() {
    Token o = in.next();
    in.pushNewlines(false);
    Token kw = in.peek();
    if (kw.type() != IDENT) {
      throw in.fail(
          "Invalid template directive",
          "A template directive must be one of if, else, endif, for or endfor, but found "
              + kw.describe()
              + ".",
          kw.range());
    }
    in.next();
    DirKind kind;
    Expression expr = null;
    String keyVar = null;
    String valueVar = null;
    switch (kw.text()) {
      case "if" -> {
        kind = DirKind.IF;
        expr = exprs.parseExpr();
      }
      case "else" -> kind = DirKind.ELSE;
      case "endif" -> kind = DirKind.ENDIF;
      case "endfor" -> kind = DirKind.ENDFOR;
      case "for" -> {
        kind = DirKind.FOR;
        Token v1 = exprs.expectIdent("an iteration variable name");
        valueVar = v1.text();
        if (in.peek().type() == COMMA) {
          in.next();
          keyVar = v1.text();
          valueVar = exprs.expectIdent("a second iteration variable name").text();
        }
        if (!in.isKeyword(in.peek(), "in")) {
          throw in.fail(
              "Invalid template directive",
              "The 'in' keyword is expected after the iteration variables.",
              in.peek().range());
        }
        in.next();
        expr = exprs.parseExpr();
      }
      default ->
          throw in.fail(
              "Invalid template directive",
              "\""
                  + kw.text()
                  + "\" is not a template directive; use if, else, endif, for or endfor.",
              kw.range());
    }
    Token c = expectSeqEnd(o);
    in.popNewlines();
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
}
