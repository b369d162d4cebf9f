package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.str;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Value;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The matching of {@code regex}, {@code regexall} and {@code replace} (registered with the string
 * functions) and of {@code fileset}'s globs: Terraform's regular expressions are Go's RE2 syntax,
 * matched here by RE2/J, which runs in time linear in the input whatever the pattern (no
 * backtracking, so no catastrophic patterns; docs/adr/0061). Matches are found, and replacements
 * expanded ({@code $1}, {@code ${name}}, {@code $$}), exactly as Go's {@code regexp} package does.
 */
final class Regexes {
  private Regexes() {}

  /**
   * The largest program a pattern may compile to, in RE2 instructions (a real pattern has tens or
   * hundreds): counted repetitions nest multiplicatively, so {@code ((a{100}){100}){100}} would
   * compile to a million, and RE2/J has no limit of its own (Go's regexp refuses such patterns as
   * too large).
   */
  static final long MAX_PROGRAM_SIZE = 100_000;

  /** Compiles an RE2 pattern given as argument {@code argIndex}. */
  static Pattern compile(String re, int argIndex) {
    long size = programSize(re);
    if (size > MAX_PROGRAM_SIZE) {
      throw new FunctionException(
          argIndex,
          "the regular expression is too large: it would compile to about "
              + size
              + " instructions, above the limit of "
              + MAX_PROGRAM_SIZE
              + ". Use fewer or smaller counted repetitions ({n}, {n,m}).");
    }
    try {
      return Pattern.compile(re);
    } catch (PatternSyntaxException e) {
      throw new FunctionException(
          argIndex,
          "invalid regular expression: "
              + e.getDescription()
              + ". The syntax is RE2's (as Go's regexp): no lookaround or backreferences.");
    }
  }

  /**
   * An upper bound of the number of instructions {@code re} compiles to: atoms count one, a group
   * its contents, a counted repetition multiplies what it repeats by its count.
   */
  static long programSize(String re) {
    ArrayDeque<long[]> outer = new ArrayDeque<>();
    long total = 0;
    long last = 0;
    int i = 0;
    while (i < re.length()) {
      char ch = re.charAt(i);
      long atom = 1;
      switch (ch) {
        case '\\' -> i = skipEscape(re, i);
        case '[' -> i = skipClass(re, i);
        case '(' -> {
          outer.push(new long[] {total, last});
          total = 0;
          last = 0;
          i++;
          continue;
        }
        case ')' -> {
          atom = total + last + 1;
          long[] frame = outer.isEmpty() ? new long[] {0, 0} : outer.pop();
          total = frame[0];
          last = frame[1];
        }
        case '|' -> {
          total = saturated(total + last + 1);
          last = 0;
          i++;
          continue;
        }
        case '*', '+', '?' -> {
          last = saturated(last + 1);
          i++;
          continue;
        }
        case '{' -> {
          int close = re.indexOf('}', i);
          long times = close < 0 ? -1 : repetitions(re.substring(i + 1, close));
          if (times >= 0) {
            last = saturated(last * (times + 1));
            i = close + 1;
            continue;
          }
        }
        default -> {}
      }
      total = saturated(total + last);
      last = atom;
      i++;
    }
    while (!outer.isEmpty()) {
      long[] frame = outer.pop();
      total = saturated(frame[0] + frame[1] + total);
    }
    return saturated(total + last);
  }

  /** The larger count of a repetition {@code n}, {@code n,} or {@code n,m}; -1 if it is none. */
  private static long repetitions(String count) {
    int comma = count.indexOf(',');
    String min = comma < 0 ? count : count.substring(0, comma);
    String max = comma < 0 ? "" : count.substring(comma + 1);
    if (min.isEmpty() || min.length() > 4 || max.length() > 4) {
      return -1;
    }
    if (!(min + max).chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
      return -1;
    }
    return Math.max(Long.parseLong(min), max.isEmpty() ? 0 : Long.parseLong(max));
  }

  private static long saturated(long n) {
    return Math.min(n, Long.MAX_VALUE / 4);
  }

  /** The index of the last char of the escape at {@code i} ({@code \\p{..}}, {@code \\Q..\\E}). */
  private static int skipEscape(String re, int i) {
    if (i + 1 >= re.length()) {
      return i;
    }
    char next = re.charAt(i + 1);
    if ((next == 'p' || next == 'P' || next == 'x') && re.startsWith("{", i + 2)) {
      int close = re.indexOf('}', i + 2);
      return close < 0 ? re.length() - 1 : close;
    }
    if (next == 'Q') {
      int end = re.indexOf("\\E", i + 2);
      return end < 0 ? re.length() - 1 : end + 1;
    }
    return i + 1;
  }

  /** The index of the {@code ]} closing the class at {@code i}. */
  private static int skipClass(String re, int i) {
    int j = i + 1;
    if (j < re.length() && re.charAt(j) == '^') {
      j++;
    }
    if (j < re.length() && re.charAt(j) == ']') {
      j++;
    }
    while (j < re.length() && re.charAt(j) != ']') {
      if (re.charAt(j) == '\\') {
        j++;
      } else if (re.startsWith("[:", j)) {
        int close = re.indexOf(":]", j + 2);
        j = close < 0 ? j : close + 1;
      }
      j++;
    }
    return Math.min(j, re.length() - 1);
  }

  /** The names of the capture groups by index (0 is the whole match, never named). */
  private static String[] groupNames(Pattern p) {
    String[] names = new String[p.groupCount() + 1];
    p.namedGroups().forEach((name, index) -> names[index] = name);
    return names;
  }

  static Value regex(List<Value> a, boolean all) {
    Pattern p = compile(str(a, 0), 0);
    String s = str(a, 1);
    String[] names = groupNames(p);
    int named = p.namedGroups().size();
    if (named > 0 && named < p.groupCount()) {
      throw new FunctionException(
          0, "the pattern must have either all named or all unnamed capture groups.");
    }
    List<Value> results = new ArrayList<>();
    Matcher m = p.matcher(s);
    int pos = 0;
    int previousEnd = -1;
    // Go's FindAllStringSubmatch: an empty match right after the previous match is skipped
    while (pos <= s.length() && m.find(pos)) {
      boolean accept = !(m.start() == m.end() && m.start() == previousEnd);
      pos = m.end() == pos ? pos + width(s, pos) : m.end();
      previousEnd = m.end();
      if (!accept) {
        continue;
      }
      Value v = result(m, names, named > 0);
      if (!all) {
        return v;
      }
      results.add(v);
    }
    if (!all) {
      throw new FunctionException(-1, "pattern did not match any part of the given string.");
    }
    return Value.list(results);
  }

  private static Value result(Matcher m, String[] names, boolean named) {
    if (names.length == 1) {
      return Value.string(m.group());
    }
    if (named) {
      Map<String, Value> o = new TreeMap<>();
      for (int i = 1; i < names.length; i++) {
        o.put(names[i], group(m, i));
      }
      return Value.object(o);
    }
    List<Value> l = new ArrayList<>();
    for (int i = 1; i < names.length; i++) {
      l.add(group(m, i));
    }
    return Value.list(l);
  }

  /** A capture group's text; null when the group did not take part in the match. */
  private static Value group(Matcher m, int i) {
    String g = m.group(i);
    return g == null ? Value.NULL : Value.string(g);
  }

  /** The number of chars of the code point at {@code pos} (1 at the end of the text). */
  private static int width(String s, int pos) {
    return pos < s.length() ? Character.charCount(s.codePointAt(pos)) : 1;
  }

  static Value replace(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    String sub = str(a, 1);
    String rep = str(a, 2);
    EvalBudget budget = EvalBudget.of(c);
    StringBuilder out = new StringBuilder();
    if (sub.length() > 1 && sub.startsWith("/") && sub.endsWith("/")) {
      Pattern p = compile(sub.substring(1, sub.length() - 1), 1);
      replaceAll(p, s, rep, out, budget);
      return Value.string(out.toString());
    }
    if (sub.isEmpty()) {
      // as Go's strings.Replace: the replacement before every character and at the end
      budget.checkLength((long) s.length() + (long) (s.length() + 1) * rep.length(), REPLACE);
      return Value.string(s.replace(sub, rep));
    }
    int from = 0;
    for (int i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, from)) {
      budget.append(out, s.subSequence(from, i), REPLACE);
      budget.append(out, rep, REPLACE);
      from = i + sub.length();
    }
    budget.append(out, s.subSequence(from, s.length()), REPLACE);
    return Value.string(out.toString());
  }

  private static final String REPLACE = "replace()";

  /**
   * Go's {@code Regexp.ReplaceAllString}: every match replaced by the expanded template, except an
   * empty match right after the previous match.
   */
  private static void replaceAll(
      Pattern p, String s, String template, StringBuilder out, EvalBudget budget) {
    Matcher m = p.matcher(s);
    String[] names = groupNames(p);
    int lastMatchEnd = 0;
    int pos = 0;
    while (pos <= s.length() && m.find(pos)) {
      budget.append(out, s.subSequence(lastMatchEnd, m.start()), REPLACE);
      if (m.end() > lastMatchEnd || m.start() == 0) {
        expand(template, m, names, out, budget);
      }
      lastMatchEnd = m.end();
      int w = width(s, pos);
      pos = pos + w > m.end() ? pos + w : m.end();
    }
    budget.append(out, s.subSequence(Math.min(lastMatchEnd, s.length()), s.length()), REPLACE);
  }

  /**
   * Go's {@code Regexp.Expand}: {@code $name} or {@code ${name}} (a name is letters, digits and
   * {@code _}, as long as possible; a number is a group index) is the group's text, empty when it
   * did not match or does not exist; {@code $$} is {@code $}; any other {@code $} stays as it is.
   */
  static void expand(
      String template, Matcher m, String[] names, StringBuilder out, EvalBudget budget) {
    int i = 0;
    while (i < template.length()) {
      int dollar = template.indexOf('$', i);
      if (dollar < 0) {
        break;
      }
      budget.append(out, template.subSequence(i, dollar), REPLACE);
      i = dollar + 1;
      if (i < template.length() && template.charAt(i) == '$') {
        budget.append(out, "$", REPLACE);
        i++;
        continue;
      }
      boolean brace = i < template.length() && template.charAt(i) == '{';
      int start = brace ? i + 1 : i;
      int end = start;
      while (end < template.length() && isNameChar(template.codePointAt(end))) {
        end += Character.charCount(template.codePointAt(end));
      }
      boolean closed = !brace || (end < template.length() && template.charAt(end) == '}');
      if (end == start || !closed) {
        budget.append(out, "$", REPLACE);
        continue;
      }
      String name = template.substring(start, end);
      i = brace ? end + 1 : end;
      int group = groupIndex(name, names);
      String text = group < 0 ? null : m.group(group);
      if (text != null) {
        budget.append(out, text, REPLACE);
      }
    }
    budget.append(out, template.subSequence(i, template.length()), REPLACE);
  }

  private static boolean isNameChar(int cp) {
    return Character.isLetter(cp) || Character.isDigit(cp) || cp == '_';
  }

  /** The group a template names: its number (no leading zeros), else its name; -1 for none. */
  private static int groupIndex(String name, String[] names) {
    boolean number = name.chars().allMatch(ch -> ch >= '0' && ch <= '9');
    if (number && (name.length() == 1 || name.charAt(0) != '0') && name.length() <= 8) {
      int n = Integer.parseInt(name);
      return n < names.length ? n : -1;
    }
    for (int g = 1; g < names.length; g++) {
      if (name.equals(names[g])) {
        return g;
      }
    }
    return -1;
  }

  /**
   * A glob as {@code fileset} takes it (Go's doublestar): {@code *} any characters but {@code /},
   * {@code **} any characters ({@code **}{@code /} also none), {@code ?} one character but {@code
   * /}, {@code [...]} a class ({@code [!...]} negated), {@code {a,b}} alternatives, {@code \\x} a
   * literal {@code x}; as an RE2 pattern matching whole paths, in linear time.
   */
  static Pattern glob(String glob, int argIndex) {
    StringBuilder re = new StringBuilder();
    int alternatives = 0;
    int i = 0;
    while (i < glob.length()) {
      char ch = glob.charAt(i);
      if (glob.startsWith("**/", i)) {
        re.append("(?:.*/)?");
        i += 3;
        continue;
      }
      if (glob.startsWith("**", i)) {
        re.append(".*");
        i += 2;
        continue;
      }
      switch (ch) {
        case '*' -> re.append("[^/]*");
        case '?' -> re.append("[^/]");
        case '{' -> {
          re.append("(?:");
          alternatives++;
        }
        case '}' -> re.append(alternatives > 0 ? ")" : "\\}");
        case ',' -> re.append(alternatives > 0 ? "|" : ",");
        case '[' -> {
          int close = glob.indexOf(']', i + 2);
          if (close < 0) {
            throw new FunctionException(argIndex, "invalid glob pattern: unclosed '['.");
          }
          String set = glob.substring(i + 1, close);
          re.append('[').append(set.startsWith("!") ? "^" + set.substring(1) : set).append(']');
          i = close;
        }
        case '\\' -> {
          if (i + 1 < glob.length()) {
            re.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
          }
        }
        default -> re.append(Pattern.quote(String.valueOf(ch)));
      }
      if (ch == '}' && alternatives > 0) {
        alternatives--;
      }
      i++;
    }
    if (alternatives > 0) {
      throw new FunctionException(argIndex, "invalid glob pattern: unclosed '{'.");
    }
    try {
      return Pattern.compile(re.toString());
    } catch (PatternSyntaxException e) {
      throw new FunctionException(argIndex, "invalid glob pattern: " + e.getDescription() + ".");
    }
  }
}
