package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.integer;
import static dev.stagecraft.language.eval.functions.Args.list;
import static dev.stagecraft.language.eval.functions.Args.num;
import static dev.stagecraft.language.eval.functions.Args.str;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.stagecraft.language.eval.Conversions;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Json;
import dev.stagecraft.language.eval.Value;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Terraform's string functions, {@code regex}, {@code regexall} and {@code replace} among them
 * (matched by {@link Regexes}).
 */
final class StringFunctions {
  private StringFunctions() {}

  static Functions register(Functions f) {
    return f.with(
            FunctionDef.of(
                "upper", 1, 1, (a, c) -> Value.string(str(a, 0).toUpperCase(Locale.ROOT))))
        .with(
            FunctionDef.of(
                "lower", 1, 1, (a, c) -> Value.string(str(a, 0).toLowerCase(Locale.ROOT))))
        .with(FunctionDef.of("trimspace", 1, 1, (a, c) -> Value.string(str(a, 0).strip())))
        .with(FunctionDef.of("chomp", 1, 1, (a, c) -> Value.string(chomp(str(a, 0)))))
        .with(FunctionDef.of("trimprefix", 2, 2, StringFunctions::trimprefix))
        .with(FunctionDef.of("trimsuffix", 2, 2, StringFunctions::trimsuffix))
        .with(
            FunctionDef.of(
                "startswith", 2, 2, (a, c) -> Value.bool(str(a, 0).startsWith(str(a, 1)))))
        .with(FunctionDef.of("endswith", 2, 2, (a, c) -> Value.bool(str(a, 0).endsWith(str(a, 1)))))
        .with(
            FunctionDef.of(
                "strrev",
                1,
                1,
                (a, c) -> Value.string(new StringBuilder(str(a, 0)).reverse().toString())))
        .with(FunctionDef.of("substr", 3, 3, StringFunctions::substr))
        .with(FunctionDef.of("format", 1, -1, StringFunctions::format))
        .with(FunctionDef.of("join", 2, -1, StringFunctions::join))
        .with(FunctionDef.of("split", 2, 2, StringFunctions::split))
        .with(FunctionDef.of("trim", 2, 2, StringFunctions::trim))
        .with(FunctionDef.of("title", 1, 1, StringFunctions::title))
        .with(FunctionDef.of("indent", 2, 2, StringFunctions::indent))
        .with(
            FunctionDef.of(
                "strcontains", 2, 2, (a, c) -> Value.bool(str(a, 0).contains(str(a, 1)))))
        .with(FunctionDef.of("formatlist", 1, -1, StringFunctions::formatlist))
        .with(FunctionDef.of("regex", 2, 2, (a, c) -> Regexes.regex(a, false)))
        .with(FunctionDef.of("regexall", 2, 2, (a, c) -> Regexes.regex(a, true)))
        .with(FunctionDef.of("replace", 3, 3, Regexes::replace));
  }

  private static Value trimprefix(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    String p = str(a, 1);
    return Value.string(s.startsWith(p) ? s.substring(p.length()) : s);
  }

  private static Value trimsuffix(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    String p = str(a, 1);
    return Value.string(s.endsWith(p) ? s.substring(0, s.length() - p.length()) : s);
  }

  private static Value substr(List<Value> a, EvalContext c) {
    int[] cps = str(a, 0).codePoints().toArray();
    int offset = integer(a, 1);
    int length = integer(a, 2);
    if (offset < 0) {
      offset = Math.max(0, cps.length + offset);
    }
    if (offset > cps.length) {
      throw new FunctionException(1, "offset " + offset + " is beyond the end of the string.");
    }
    int end = length < 0 ? cps.length : Math.min(cps.length, offset + length);
    return Value.string(new String(cps, offset, end - offset));
  }

  /** Without the newlines ({@code \n}, {@code \r}) at the end. */
  private static String chomp(String s) {
    int end = s.length();
    while (end > 0 && (s.charAt(end - 1) == '\n' || s.charAt(end - 1) == '\r')) {
      end--;
    }
    return s.substring(0, end);
  }

  private static Value join(List<Value> a, EvalContext c) {
    String sep = str(a, 0);
    EvalBudget budget = EvalBudget.of(c);
    StringBuilder sb = new StringBuilder();
    boolean first = true;
    for (int i = 1; i < a.size(); i++) {
      for (Value v : list(a, i)) {
        if (v.isNull()) {
          throw new FunctionException(i, "the list must not contain null elements.");
        }
        String s =
            Conversions.toStr(v)
                .orElseThrow(
                    () ->
                        new FunctionException(
                            -1, "list elements must be strings, not " + v.typeName() + "."));
        if (!first) {
          budget.append(sb, sep, "join()");
        }
        budget.append(sb, s, "join()");
        first = false;
      }
    }
    return Value.string(sb.toString());
  }

  private static Value split(List<Value> a, EvalContext c) {
    String sep = str(a, 0);
    String s = str(a, 1);
    List<Value> out = new ArrayList<>();
    if (sep.isEmpty()) {
      s.codePoints().forEach(cp -> out.add(Value.string(new String(Character.toChars(cp)))));
      return Value.list(out);
    }
    int from = 0;
    while (true) {
      int i = s.indexOf(sep, from);
      if (i < 0) {
        out.add(Value.string(s.substring(from)));
        return Value.list(out);
      }
      out.add(Value.string(s.substring(from, i)));
      from = i + sep.length();
    }
  }

  private static final String FORMAT = "format()";

  /** A width or precision of a format verb; over the string limit is an error. */
  private static int size(String digits, EvalBudget budget) {
    long n = 0;
    for (int i = 0; i < digits.length() && n <= Integer.MAX_VALUE; i++) {
      n = n * 10 + (digits.charAt(i) - '0');
    }
    budget.checkLength(n, FORMAT);
    return (int) n;
  }

  private static final Pattern VERB =
      Pattern.compile("%([-+# 0]*)(\\d+)?(?:\\.(\\d+))?([a-zA-Z%])");

  private static Value format(List<Value> a, EvalContext c) {
    String f = str(a, 0);
    EvalBudget budget = EvalBudget.of(c);
    StringBuilder sb = new StringBuilder();
    Matcher m = VERB.matcher(f);
    int last = 0;
    int argi = 1;
    while (m.find()) {
      budget.append(sb, f.subSequence(last, m.start()), FORMAT);
      last = m.end();
      String flags = m.group(1);
      int width = m.group(2) == null ? -1 : size(m.group(2), budget);
      int prec = m.group(3) == null ? -1 : size(m.group(3), budget);
      char verb = m.group(4).charAt(0);
      if (verb == '%') {
        budget.append(sb, "%", FORMAT);
        continue;
      }
      if (argi >= a.size()) {
        throw new FunctionException(
            -1, "not enough arguments for the format string \"" + f + "\".");
      }
      int ai = argi++;
      String out = formatVerb(verb, prec, a, ai, budget);
      if (flags.contains("+") && (verb == 'd' || verb == 'f') && !out.startsWith("-")) {
        out = "+" + out;
      }
      out = pad(out, flags, width);
      budget.append(sb, out, FORMAT);
    }
    budget.append(sb, f.subSequence(last, f.length()), FORMAT);
    if (argi < a.size()) {
      throw new FunctionException(
          -1, "too many arguments; the format string \"" + f + "\" uses " + (argi - 1) + ".");
    }
    return Value.string(sb.toString());
  }

  /** One {@code format} verb applied to argument {@code ai}, before width and flags. */
  private static String formatVerb(char verb, int prec, List<Value> a, int ai, EvalBudget budget) {
    Value v = a.get(ai);
    return switch (verb) {
      case 's' -> {
        String s = str(a, ai);
        yield prec < 0 ? s : s.substring(0, Math.min(s.length(), prec));
      }
      case 'q' -> Json.quote(str(a, ai));
      case 'v' -> {
        budget.checkEncodable(v, FORMAT);
        yield v instanceof Value.StringValue s ? s.value() : v.isNull() ? "null" : Json.encode(v);
      }
      case 't' ->
          Boolean.toString(
              Conversions.toBool(v)
                  .orElseThrow(() -> new FunctionException(ai, "%t requires a bool.")));
      case 'd' -> {
        BigDecimal n = num(a, ai);
        budget.checkLength(Value.plainLength(n), FORMAT);
        try {
          yield n.stripTrailingZeros().toBigIntegerExact().toString();
        } catch (ArithmeticException e) {
          throw new FunctionException(
              ai, "%d requires a whole number, got " + Value.formatNumber(n) + ".");
        }
      }
      case 'f', 'e', 'g' -> {
        BigDecimal n = num(a, ai);
        budget.checkLength(Value.plainLength(n) + Math.max(prec, 6), FORMAT);
        String spec = "%" + (prec < 0 ? (verb == 'g' ? "" : ".6") : "." + prec) + verb;
        yield String.format(Locale.ROOT, spec, n);
      }
      case 'x', 'X', 'o', 'b' -> {
        BigInteger n;
        // in base 2 a number has at most four times as many digits as in base 10
        budget.checkLength(4 * Value.plainLength(num(a, ai)), FORMAT);
        try {
          n = num(a, ai).stripTrailingZeros().toBigIntegerExact();
        } catch (ArithmeticException e) {
          throw new FunctionException(ai, "%" + verb + " requires a whole number.");
        }
        String r = n.toString(verb == 'o' ? 8 : verb == 'b' ? 2 : 16);
        yield verb == 'X' ? r.toUpperCase(Locale.ROOT) : r;
      }
      default -> throw new FunctionException(0, "unsupported format verb %" + verb + ".");
    };
  }

  /**
   * Pads {@code out} to {@code width} as the flags say ({@code -} left-aligns, {@code 0} zeros).
   */
  private static String pad(String out, String flags, int width) {
    if (width >= 0) {
      int w = width;
      if (out.length() < w) {
        String pad =
            (flags.contains("0") && !flags.contains("-") ? "0" : " ").repeat(w - out.length());
        if (flags.contains("-")) {
          out = out + pad;
        } else if (pad.startsWith("0") && (out.startsWith("-") || out.startsWith("+"))) {
          out = out.charAt(0) + pad + out.substring(1);
        } else {
          out = pad + out;
        }
      }
    }
    return out;
  }

  private static Value trim(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    String cut = str(a, 1);
    int b = 0;
    int e = s.length();
    while (b < e && cut.indexOf(s.charAt(b)) >= 0) {
      b++;
    }
    while (e > b && cut.indexOf(s.charAt(e - 1)) >= 0) {
      e--;
    }
    return Value.string(s.substring(b, e));
  }

  private static Value title(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    StringBuilder sb = new StringBuilder();
    boolean prevLetter = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      boolean letter = Character.isLetterOrDigit(cp) || cp == '_' || cp == '\'';
      sb.appendCodePoint(letter && !prevLetter ? Character.toTitleCase(cp) : cp);
      prevLetter = letter;
      i += Character.charCount(cp);
    }
    return Value.string(sb.toString());
  }

  private static Value indent(List<Value> a, EvalContext c) {
    int n = Math.max(0, integer(a, 0));
    String s = str(a, 1);
    long lines = s.chars().filter(ch -> ch == '\n').count();
    EvalBudget.of(c).checkLength(s.length() + lines * n, "indent()");
    return Value.string(s.replace("\n", "\n" + " ".repeat(n)));
  }

  private static Value formatlist(List<Value> a, EvalContext c) {
    int n = -1;
    for (int i = 1; i < a.size(); i++) {
      if (a.get(i) instanceof Value.ListValue l) {
        if (n >= 0 && n != l.elements().size()) {
          throw new FunctionException(
              i,
              "all list arguments must have the same length ("
                  + n
                  + " and "
                  + l.elements().size()
                  + ").");
        }
        n = l.elements().size();
      }
    }
    if (n < 0) {
      n = 1;
    }
    FunctionDef format = Functions.standard().get("format").orElseThrow();
    List<Value> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      List<Value> args = new ArrayList<>();
      args.add(a.get(0));
      for (int i = 1; i < a.size(); i++) {
        args.add(a.get(i) instanceof Value.ListValue l ? l.elements().get(k) : a.get(i));
      }
      // each string counts, not only the list's elements
      out.add(EvalBudget.of(c).charge(format.impl().call(args, c), "formatlist()"));
    }
    return Value.list(out);
  }
}
