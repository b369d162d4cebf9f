package dev.stagecraft.language.eval;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Terraform's built-in functions. To add one: write a static method taking {@code (List<Value>,
 * EvalContext)} and register it in {@link #register(Functions)} with its arity. Arguments arrive
 * wholly known and unmarked unless the definition says otherwise.
 */
final class StandardFunctions {
  private StandardFunctions() {}

  static Functions register(Functions f) {
    return f
        // string
        .with(
            FunctionDef.of(
                "upper", 1, 1, (a, c) -> Value.string(str(a, 0).toUpperCase(Locale.ROOT))))
        .with(
            FunctionDef.of(
                "lower", 1, 1, (a, c) -> Value.string(str(a, 0).toLowerCase(Locale.ROOT))))
        .with(FunctionDef.of("trimspace", 1, 1, (a, c) -> Value.string(str(a, 0).strip())))
        .with(FunctionDef.of("chomp", 1, 1, (a, c) -> Value.string(chomp(str(a, 0)))))
        .with(FunctionDef.of("trimprefix", 2, 2, StandardFunctions::trimprefix))
        .with(FunctionDef.of("trimsuffix", 2, 2, StandardFunctions::trimsuffix))
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
        .with(FunctionDef.of("substr", 3, 3, StandardFunctions::substr))
        .with(FunctionDef.of("format", 1, -1, StandardFunctions::format))
        .with(FunctionDef.of("join", 2, -1, StandardFunctions::join))
        .with(FunctionDef.of("split", 2, 2, StandardFunctions::split))
        // collection
        .with(FunctionDef.of("length", 1, 1, StandardFunctions::length).acceptingUnknown())
        .with(FunctionDef.of("concat", 0, -1, StandardFunctions::concat))
        .with(FunctionDef.of("contains", 2, 2, StandardFunctions::contains))
        .with(
            FunctionDef.of(
                "keys",
                1,
                1,
                (a, c) ->
                    Value.list(
                        map(a, 0).keySet().stream().map(k -> (Value) Value.string(k)).toList())))
        .with(
            FunctionDef.of(
                "values", 1, 1, (a, c) -> Value.list(new ArrayList<>(map(a, 0).values()))))
        .with(FunctionDef.of("lookup", 2, 3, StandardFunctions::lookup))
        .with(FunctionDef.of("merge", 0, -1, StandardFunctions::merge))
        .with(FunctionDef.of("element", 2, 2, StandardFunctions::element))
        .with(FunctionDef.of("range", 1, 3, StandardFunctions::range))
        .with(FunctionDef.of("flatten", 1, 1, (a, c) -> Value.list(flatten(list(a, 0)))))
        .with(
            FunctionDef.of(
                "reverse", 1, 1, (a, c) -> Value.list(new ArrayList<>(list(a, 0)).reversed())))
        .with(FunctionDef.of("distinct", 1, 1, StandardFunctions::distinct))
        .with(FunctionDef.of("compact", 1, 1, StandardFunctions::compact))
        .with(FunctionDef.of("zipmap", 2, 2, StandardFunctions::zipmap))
        .with(FunctionDef.of("coalesce", 1, -1, StandardFunctions::coalesce))
        // numeric
        .with(FunctionDef.of("min", 1, -1, (a, c) -> minMax(a, true)))
        .with(FunctionDef.of("max", 1, -1, (a, c) -> minMax(a, false)))
        .with(FunctionDef.of("abs", 1, 1, (a, c) -> Value.number(num(a, 0).abs())))
        .with(
            FunctionDef.of(
                "ceil", 1, 1, (a, c) -> Value.number(num(a, 0).setScale(0, RoundingMode.CEILING))))
        .with(
            FunctionDef.of(
                "floor", 1, 1, (a, c) -> Value.number(num(a, 0).setScale(0, RoundingMode.FLOOR))))
        // type conversion
        .with(FunctionDef.of("tostring", 1, 1, StandardFunctions::tostring))
        .with(FunctionDef.of("tonumber", 1, 1, StandardFunctions::tonumber))
        .with(FunctionDef.of("tobool", 1, 1, StandardFunctions::tobool))
        .with(
            FunctionDef.of(
                "tolist", 1, 1, (a, c) -> a.get(0).isNull() ? Value.NULL : Value.list(list(a, 0))))
        .with(
            FunctionDef.of(
                "toset",
                1,
                1,
                (a, c) ->
                    a.get(0).isNull()
                        ? Value.NULL
                        : Value.list(MoreFunctions.toSet(list(a, 0), EvalBudget.of(c)))))
        .with(
            FunctionDef.of(
                "tomap", 1, 1, (a, c) -> a.get(0).isNull() ? Value.NULL : Value.object(map(a, 0))))
        .with(
            FunctionDef.of("sensitive", 1, 1, (a, c) -> a.get(0).mark(true))
                .acceptingUnknown()
                .handlingMarks())
        .with(
            FunctionDef.of("nonsensitive", 1, 1, StandardFunctions::nonsensitive)
                .acceptingUnknown()
                .handlingMarks())
        // encoding
        .with(FunctionDef.of("jsonencode", 1, 1, StandardFunctions::jsonencode))
        .with(FunctionDef.of("jsondecode", 1, 1, StandardFunctions::jsondecode))
        .with(
            FunctionDef.of(
                "base64encode",
                1,
                1,
                (a, c) -> Value.string(Base64.getEncoder().encodeToString(bytes(str(a, 0))))))
        .with(FunctionDef.of("base64decode", 1, 1, StandardFunctions::base64decode))
        // hash
        .with(
            FunctionDef.of(
                "sha256", 1, 1, (a, c) -> Value.string(hex("SHA-256", bytes(str(a, 0))))))
        .with(FunctionDef.of("sha1", 1, 1, (a, c) -> Value.string(hex("SHA-1", bytes(str(a, 0))))))
        .with(
            FunctionDef.of(
                "sha512", 1, 1, (a, c) -> Value.string(hex("SHA-512", bytes(str(a, 0))))))
        .with(FunctionDef.of("md5", 1, 1, (a, c) -> Value.string(hex("MD5", bytes(str(a, 0))))))
        .with(
            FunctionDef.of(
                "base64sha256",
                1,
                1,
                (a, c) ->
                    Value.string(
                        Base64.getEncoder().encodeToString(digest("SHA-256", bytes(str(a, 0)))))))
        // filesystem
        .with(FunctionDef.of("file", 1, 1, (a, c) -> Value.string(readText(a, c))))
        .with(
            FunctionDef.of(
                "fileexists", 1, 1, (a, c) -> Value.bool(Files.isRegularFile(resolve(a, c)))))
        .with(FunctionDef.of("filemd5", 1, 1, (a, c) -> Value.string(hex("MD5", readBytes(a, c)))))
        .with(
            FunctionDef.of(
                "filesha256", 1, 1, (a, c) -> Value.string(hex("SHA-256", readBytes(a, c)))))
        .with(
            FunctionDef.of("filesha1", 1, 1, (a, c) -> Value.string(hex("SHA-1", readBytes(a, c)))))
        .with(
            FunctionDef.of(
                "filebase64",
                1,
                1,
                (a, c) -> Value.string(Base64.getEncoder().encodeToString(readBytes(a, c)))))
        // time and ids
        .with(
            FunctionDef.of(
                    "timestamp",
                    0,
                    0,
                    (a, c) ->
                        Value.string(
                            DateTimeFormatter.ISO_INSTANT.format(
                                c.clock().instant().truncatedTo(ChronoUnit.SECONDS))))
                .asImpure())
        .with(
            FunctionDef.of("uuid", 0, 0, (a, c) -> Value.string(c.uuids().get().toString()))
                .asImpure());
  }

  // ------------------------------------------------------------------ argument helpers

  static String str(List<Value> a, int i) {
    Value v = a.get(i);
    if (v.isNull()) {
      throw new FunctionException(i, "argument must not be null; a string is required.");
    }
    return Conversions.toStr(v)
        .orElseThrow(
            () -> new FunctionException(i, "a string is required, but got " + v.typeName() + "."));
  }

  static BigDecimal num(List<Value> a, int i) {
    Value v = a.get(i);
    return Conversions.toNumber(v)
        .orElseThrow(
            () -> new FunctionException(i, "a number is required, but got " + describe(v) + "."));
  }

  static int integer(List<Value> a, int i) {
    BigDecimal n = num(a, i);
    try {
      return n.stripTrailingZeros().intValueExact();
    } catch (ArithmeticException e) {
      throw new FunctionException(
          i, "a whole number is required, but got " + Value.formatNumber(n) + ".");
    }
  }

  static List<Value> list(List<Value> a, int i) {
    if (a.get(i) instanceof Value.ListValue l) {
      return l.elements();
    }
    throw new FunctionException(i, "a list is required, but got " + a.get(i).typeName() + ".");
  }

  static Map<String, Value> map(List<Value> a, int i) {
    if (a.get(i) instanceof Value.ObjectValue o) {
      return o.attributes();
    }
    throw new FunctionException(
        i, "a map or object is required, but got " + a.get(i).typeName() + ".");
  }

  private static String describe(Value v) {
    return v instanceof Value.StringValue s ? "string \"" + s.value() + "\"" : v.typeName();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] digest(String alg, byte[] data) {
    try {
      return MessageDigest.getInstance(alg).digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(alg + " is not available in this JDK", e);
    }
  }

  private static String hex(String alg, byte[] data) {
    return HexFormat.of().formatHex(digest(alg, data));
  }

  // ------------------------------------------------------------------ string

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

  /** About how many characters the plain decimal form of {@code n} has. */
  static long plainLength(BigDecimal n) {
    return (long) n.precision() + Math.abs((long) n.scale()) + 2;
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
      Value v = a.get(ai);
      String out =
          switch (verb) {
            case 's' -> {
              String s = str(a, ai);
              yield prec < 0 ? s : s.substring(0, Math.min(s.length(), prec));
            }
            case 'q' -> Json.quote(str(a, ai));
            case 'v' -> {
              budget.checkEncodable(v, FORMAT);
              yield v instanceof Value.StringValue s
                  ? s.value()
                  : v.isNull() ? "null" : Json.encode(v);
            }
            case 't' ->
                Boolean.toString(
                    Conversions.toBool(v)
                        .orElseThrow(() -> new FunctionException(ai, "%t requires a bool.")));
            case 'd' -> {
              BigDecimal n = num(a, ai);
              budget.checkLength(plainLength(n), FORMAT);
              try {
                yield n.stripTrailingZeros().toBigIntegerExact().toString();
              } catch (ArithmeticException e) {
                throw new FunctionException(
                    ai, "%d requires a whole number, got " + Value.formatNumber(n) + ".");
              }
            }
            case 'f', 'e', 'g' -> {
              BigDecimal n = num(a, ai);
              budget.checkLength(plainLength(n) + Math.max(prec, 6), FORMAT);
              String spec = "%" + (prec < 0 ? (verb == 'g' ? "" : ".6") : "." + prec) + verb;
              yield String.format(Locale.ROOT, spec, n);
            }
            case 'x', 'X', 'o', 'b' -> {
              BigInteger n;
              // in base 2 a number has at most four times as many digits as in base 10
              budget.checkLength(4 * plainLength(num(a, ai)), FORMAT);
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
      if (flags.contains("+") && (verb == 'd' || verb == 'f') && !out.startsWith("-")) {
        out = "+" + out;
      }
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
      budget.append(sb, out, FORMAT);
    }
    budget.append(sb, f.subSequence(last, f.length()), FORMAT);
    if (argi < a.size()) {
      throw new FunctionException(
          -1, "too many arguments; the format string \"" + f + "\" uses " + (argi - 1) + ".");
    }
    return Value.string(sb.toString());
  }

  // ------------------------------------------------------------------ collection

  private static Value length(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    return switch (v) {
      case Value.UnknownValue u -> v;
      case Value.StringValue s -> Value.number(s.value().codePointCount(0, s.value().length()));
      case Value.ListValue l -> Value.number(l.elements().size());
      case Value.ObjectValue o -> Value.number(o.attributes().size());
      default ->
          throw new FunctionException(
              0, "length() requires a string, list or map, but got " + v.typeName() + ".");
    };
  }

  private static Value concat(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.addAll(list(a, i));
    }
    return Value.list(out);
  }

  private static Value contains(List<Value> a, EvalContext c) {
    Value x = a.get(1);
    return Value.bool(list(a, 0).stream().anyMatch(v -> Conversions.valuesEqual(v, x)));
  }

  private static Value lookup(List<Value> a, EvalContext c) {
    Map<String, Value> m = map(a, 0);
    String k = str(a, 1);
    Value v = m.get(k);
    if (v != null) {
      return v;
    }
    if (a.size() == 3) {
      return a.get(2);
    }
    throw new FunctionException(1, "the map has no key \"" + k + "\" and no default was given.");
  }

  private static Value merge(List<Value> a, EvalContext c) {
    Map<String, Value> out = new LinkedHashMap<>();
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).isNull()) {
        out.putAll(map(a, i));
      }
    }
    return Value.object(out);
  }

  private static Value element(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    int i = integer(a, 1);
    if (l.isEmpty()) {
      throw new FunctionException(0, "cannot use element() with an empty list.");
    }
    if (i < 0) {
      throw new FunctionException(1, "the index must not be negative.");
    }
    return l.get(i % l.size());
  }

  private static Value range(List<Value> a, EvalContext c) {
    BigDecimal start = BigDecimal.ZERO;
    BigDecimal limit;
    BigDecimal step = BigDecimal.ONE;
    if (a.size() == 1) {
      limit = num(a, 0);
    } else {
      start = num(a, 0);
      limit = num(a, 1);
      if (a.size() == 3) {
        step = num(a, 2);
      } else if (limit.compareTo(start) < 0) {
        step = BigDecimal.ONE.negate();
      }
    }
    if (step.signum() == 0) {
      throw new FunctionException(2, "the step must not be zero.");
    }
    List<Value> out = new ArrayList<>();
    for (BigDecimal x = start;
        step.signum() > 0 ? x.compareTo(limit) < 0 : x.compareTo(limit) > 0;
        x = x.add(step)) {
      if (out.size() >= 1024) {
        throw new FunctionException(
            -1, "more than 1024 values were generated; use a smaller range.");
      }
      out.add(Value.number(x));
    }
    return Value.list(out);
  }

  private static List<Value> flatten(List<Value> l) {
    List<Value> out = new ArrayList<>();
    for (Value v : l) {
      if (v instanceof Value.ListValue inner) {
        out.addAll(flatten(inner.elements()));
      } else {
        out.add(v);
      }
    }
    return out;
  }

  private static Value distinct(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>();
    EvalBudget budget = EvalBudget.of(c);
    for (Value v : list(a, 0)) {
      budget.checkDeadline(null); // quadratic in the number of elements
      if (out.stream().noneMatch(x -> Conversions.valuesEqual(x, v))) {
        out.add(v);
      }
    }
    return Value.list(out);
  }

  private static Value compact(List<Value> a, EvalContext c) {
    return Value.list(
        list(a, 0).stream()
            .filter(v -> !v.isNull() && !(v instanceof Value.StringValue s && s.value().isEmpty()))
            .toList());
  }

  private static Value zipmap(List<Value> a, EvalContext c) {
    List<Value> ks = list(a, 0);
    List<Value> vs = list(a, 1);
    if (ks.size() != vs.size()) {
      throw new FunctionException(
          1, "the number of keys (" + ks.size() + ") and values (" + vs.size() + ") must match.");
    }
    Map<String, Value> out = new LinkedHashMap<>();
    for (int i = 0; i < ks.size(); i++) {
      Value k = ks.get(i);
      out.put(
          Conversions.toStr(k).orElseThrow(() -> new FunctionException(0, "keys must be strings.")),
          vs.get(i));
    }
    return Value.object(out);
  }

  private static Value coalesce(List<Value> a, EvalContext c) {
    for (Value v : a) {
      if (!v.isNull() && !(v instanceof Value.StringValue s && s.value().isEmpty())) {
        return v;
      }
    }
    throw new FunctionException(-1, "no non-null, non-empty-string arguments.");
  }

  private static Value minMax(List<Value> a, boolean min) {
    BigDecimal best = num(a, 0);
    for (int i = 1; i < a.size(); i++) {
      BigDecimal n = num(a, i);
      if (min ? n.compareTo(best) < 0 : n.compareTo(best) > 0) {
        best = n;
      }
    }
    return Value.number(best);
  }

  // ------------------------------------------------------------------ conversion

  /**
   * Removes the sensitive marks of a value, as Terraform's {@code nonsensitive()} does — except the
   * state's ({@link Value#isFromState()}): a value the workspace's state holds sensitive is never
   * shown in clear, whoever writes the configuration.
   */
  private static Value nonsensitive(List<Value> a, EvalContext c) {
    if (a.get(0).containsFromState()) {
      throw FunctionException.quotingNoValue(
          0,
          "the value is (or is computed from) a value the workspace's state holds sensitive (a"
              + " sealed value, or one listed in sensitive_attributes), and Stagecraft never shows"
              + " such a value in clear, so its mark cannot be removed. Keep it sensitive: mark"
              + " an output of it sensitive = true, or leave it out of what must be shown.");
    }
    return a.get(0).unmarkDeep();
  }

  private static Value tostring(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    if (v.isNull()) {
      return Value.NULL;
    }
    return Value.string(
        Conversions.toStr(v)
            .orElseThrow(
                () -> new FunctionException(0, "cannot convert " + v.typeName() + " to string.")));
  }

  private static Value tonumber(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    if (v.isNull()) {
      return Value.NULL;
    }
    Optional<BigDecimal> n = Conversions.toNumber(v);
    return Value.number(
        n.orElseThrow(
            () ->
                new FunctionException(
                    0,
                    "cannot convert "
                        + describe(v)
                        + " to number; given string must be a decimal representation of a number.")));
  }

  private static Value tobool(List<Value> a, EvalContext c) {
    Value v = a.get(0);
    if (v.isNull()) {
      return Value.NULL;
    }
    return Value.bool(
        Conversions.toBool(v)
            .orElseThrow(
                () ->
                    new FunctionException(
                        0,
                        "cannot convert "
                            + describe(v)
                            + " to bool; only \"true\" or \"false\" are allowed.")));
  }

  // ------------------------------------------------------------------ encoding

  private static Value jsonencode(List<Value> a, EvalContext c) {
    EvalBudget.of(c).checkEncodable(a.get(0), "jsonencode()");
    return Value.string(Json.encode(a.get(0)));
  }

  private static Value jsondecode(List<Value> a, EvalContext c) {
    try {
      return Json.decode(str(a, 0));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(0, "the given string is not valid JSON: " + e.getMessage());
    }
  }

  private static Value base64decode(List<Value> a, EvalContext c) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(str(a, 0));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(0, "the given value is not valid base64: " + e.getMessage());
    }
    try {
      return Value.string(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(raw))
              .toString());
    } catch (CharacterCodingException e) {
      throw new FunctionException(0, "the decoded result is not valid UTF-8.");
    }
  }

  // ------------------------------------------------------------------ filesystem

  private static Path resolve(List<Value> a, EvalContext c) {
    try {
      return c.resolvePath(str(a, 0));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(0, "invalid path: " + e.getMessage());
    }
  }

  private static byte[] readBytes(List<Value> a, EvalContext c) {
    Path p = resolve(a, c);
    if (!Files.isRegularFile(p)) {
      throw new FunctionException(
          0,
          "no file exists at \""
              + str(a, 0)
              + "\" (relative to "
              + (c.fileAccessConfined() ? "the configuration directory" : c.baseDirectory())
              + "); check the path, or use fileexists() to guard.");
    }
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new FunctionException(0, "cannot read \"" + p + "\": " + e.getMessage());
    }
  }

  private static String readText(List<Value> a, EvalContext c) {
    byte[] raw = readBytes(a, c);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(raw))
          .toString();
    } catch (CharacterCodingException e) {
      throw new FunctionException(
          0,
          "contents of \""
              + str(a, 0)
              + "\" are not valid UTF-8; use filebase64 to read binary files.");
    }
  }
}
