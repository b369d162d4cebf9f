package dev.stagecraft.language.eval;

import static dev.stagecraft.language.eval.StandardFunctions.integer;
import static dev.stagecraft.language.eval.StandardFunctions.list;
import static dev.stagecraft.language.eval.StandardFunctions.map;
import static dev.stagecraft.language.eval.StandardFunctions.num;
import static dev.stagecraft.language.eval.StandardFunctions.str;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * The rest of Terraform's built-in library (templates, YAML, regular expressions, dates, sets, IP
 * networks, hashes, paths, ...). Expectations in the tests are Terraform's documented examples.
 */
final class MoreFunctions {
  private MoreFunctions() {}

  static Functions register(Functions f) {
    return f
        // filesystem / templates
        .with(FunctionDef.of("templatefile", 2, 2, MoreFunctions::templatefile))
        .with(FunctionDef.of("fileset", 2, 2, MoreFunctions::fileset))
        .with(FunctionDef.of("abspath", 1, 1, MoreFunctions::abspath))
        .with(FunctionDef.of("dirname", 1, 1, (a, c) -> Value.string(dirname(str(a, 0)))))
        .with(FunctionDef.of("basename", 1, 1, (a, c) -> Value.string(basename(str(a, 0)))))
        .with(FunctionDef.of("pathexpand", 1, 1, MoreFunctions::pathexpand))
        .with(
            FunctionDef.of(
                "filesha512",
                1,
                1,
                (a, c) -> Value.string(HexFormat.of().formatHex(digest("SHA-512", file(a, c))))))
        .with(
            FunctionDef.of(
                "filebase64sha256",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-256", file(a, c))))))
        .with(
            FunctionDef.of(
                "filebase64sha512",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-512", file(a, c))))))
        // encoding / hashing
        .with(
            FunctionDef.of(
                "yamlencode",
                1,
                1,
                (a, c) -> {
                  EvalBudget.of(c).checkEncodable(a.get(0), "yamlencode()");
                  return Value.string(Yaml.encode(a.get(0)));
                }))
        .with(
            FunctionDef.of("yamldecode", 1, 1, (a, c) -> Yaml.decode(str(a, 0), EvalBudget.of(c))))
        .with(FunctionDef.of("base64gzip", 1, 1, MoreFunctions::base64gzip))
        .with(FunctionDef.of("urlencode", 1, 1, MoreFunctions::urlencode))
        .with(
            FunctionDef.of(
                "base64sha512",
                1,
                1,
                (a, c) -> Value.string(b64(digest("SHA-512", utf8(str(a, 0)))))))
        .with(FunctionDef.of("uuidv5", 2, 2, MoreFunctions::uuidv5))
        // strings
        .with(FunctionDef.of("trim", 2, 2, MoreFunctions::trim))
        .with(FunctionDef.of("title", 1, 1, MoreFunctions::title))
        .with(FunctionDef.of("indent", 2, 2, MoreFunctions::indent))
        .with(
            FunctionDef.of(
                "strcontains", 2, 2, (a, c) -> Value.bool(str(a, 0).contains(str(a, 1)))))
        .with(FunctionDef.of("formatlist", 1, -1, MoreFunctions::formatlist))
        // date and time
        .with(FunctionDef.of("formatdate", 2, 2, MoreFunctions::formatdate))
        .with(FunctionDef.of("timeadd", 2, 2, MoreFunctions::timeadd))
        .with(
            FunctionDef.of(
                "timecmp",
                2,
                2,
                (a, c) ->
                    Value.number(
                        Integer.signum(time(a, 0).toInstant().compareTo(time(a, 1).toInstant())))))
        .with(
            FunctionDef.of(
                "plantimestamp",
                0,
                0,
                (a, c) ->
                    Value.string(
                        rfc3339(
                            c.planTimestamp()
                                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                                .atOffset(ZoneOffset.UTC)))))
        // numeric
        .with(FunctionDef.of("parseint", 2, 2, MoreFunctions::parseint))
        .with(FunctionDef.of("signum", 1, 1, (a, c) -> Value.number(num(a, 0).signum())))
        .with(FunctionDef.of("log", 2, 2, MoreFunctions::log))
        .with(FunctionDef.of("pow", 2, 2, MoreFunctions::pow))
        .with(FunctionDef.of("sum", 1, 1, MoreFunctions::sum))
        // collections
        .with(FunctionDef.of("index", 2, 2, MoreFunctions::index))
        .with(FunctionDef.of("slice", 3, 3, MoreFunctions::slice))
        .with(FunctionDef.of("sort", 1, 1, MoreFunctions::sort))
        .with(FunctionDef.of("setunion", 1, -1, MoreFunctions::setunion))
        .with(FunctionDef.of("setintersection", 1, -1, MoreFunctions::setintersection))
        .with(FunctionDef.of("setsubtract", 2, 2, MoreFunctions::setsubtract))
        .with(FunctionDef.of("setproduct", 1, -1, MoreFunctions::setproduct))
        .with(FunctionDef.of("transpose", 1, 1, MoreFunctions::transpose))
        .with(FunctionDef.of("one", 1, 1, MoreFunctions::one))
        .with(FunctionDef.of("alltrue", 1, 1, (a, c) -> allAny(a, true)))
        .with(FunctionDef.of("anytrue", 1, 1, (a, c) -> allAny(a, false)))
        .with(FunctionDef.of("coalescelist", 1, -1, MoreFunctions::coalescelist))
        .with(FunctionDef.of("chunklist", 2, 2, MoreFunctions::chunklist))
        .with(FunctionDef.of("matchkeys", 3, 3, MoreFunctions::matchkeys))
        // IP network
        .with(FunctionDef.of("cidrhost", 2, 2, MoreFunctions::cidrhost))
        .with(FunctionDef.of("cidrnetmask", 1, 1, MoreFunctions::cidrnetmask))
        .with(FunctionDef.of("cidrsubnet", 3, 3, MoreFunctions::cidrsubnet))
        .with(FunctionDef.of("cidrsubnets", 1, -1, MoreFunctions::cidrsubnets))
        // type
        .with(
            FunctionDef.of("issensitive", 1, 1, (a, c) -> Value.bool(a.get(0).isSensitive()))
                .acceptingUnknown()
                .handlingMarks());
  }

  // ------------------------------------------------------------------ helpers

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  private static byte[] digest(String alg, byte[] data) {
    try {
      return MessageDigest.getInstance(alg).digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(alg + " is not available in this JDK", e);
    }
  }

  private static Path path(List<Value> a, int i, EvalContext c) {
    try {
      return c.resolvePath(str(a, i));
    } catch (IllegalArgumentException e) {
      throw new FunctionException(i, "invalid path: " + e.getMessage());
    }
  }

  private static byte[] file(List<Value> a, EvalContext c) {
    Path p = path(a, 0, c);
    if (!Files.isRegularFile(p)) {
      throw new FunctionException(
          0,
          "no file exists at \""
              + str(a, 0)
              + "\" (relative to "
              + (c.fileAccessConfined() ? "the configuration directory" : c.baseDirectory())
              + "); check the path.");
    }
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new FunctionException(0, "cannot read \"" + p + "\": " + e.getMessage());
    }
  }

  // ------------------------------------------------------------------ templatefile / fileset

  /** An identifier, as a template's variable names must be: {@code [A-Za-z_][A-Za-z0-9_-]*}. */
  private static boolean isIdentifier(String s) {
    if (s.isEmpty() || !(Character.isLetter(s.charAt(0)) || s.charAt(0) == '_')) {
      return false;
    }
    return s.chars()
        .allMatch(ch -> ch < 128 && (Character.isLetterOrDigit(ch) || ch == '_' || ch == '-'));
  }

  private static Value templatefile(List<Value> a, EvalContext c) {
    String name = str(a, 0);
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .decode(java.nio.ByteBuffer.wrap(file(a, c)))
              .toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new FunctionException(0, "contents of \"" + name + "\" are not valid UTF-8.");
    }
    if (!a.get(1).isNull() && !(a.get(1) instanceof Value.ObjectValue)) {
      throw new FunctionException(1, "the variables must be a map or object.");
    }
    Map<String, Value> vars = a.get(1).isNull() ? Map.of() : map(a, 1);
    SimpleEvalContext ctx =
        SimpleEvalContext.empty()
            .withBudget(EvalBudget.of(c))
            .withBaseDirectory(c.baseDirectory())
            .withFileAccessConfined(c.fileAccessConfined())
            .withClock(c.clock())
            .withUuids(c.uuids())
            .withImpureFunctionsOf(c);
    for (Map.Entry<String, Value> e : vars.entrySet()) {
      if (!isIdentifier(e.getKey())) {
        throw new FunctionException(
            1, "invalid template variable name \"" + e.getKey() + "\": must be an identifier.");
      }
      ctx = ctx.withRoot(e.getKey(), e.getValue());
    }
    ExpressionResult pr = Parser.parseTemplate(name, text, SourcePos.START);
    if (pr.diagnostics().hasErrors() || pr.expression() == null) {
      throw new FunctionException(
          0, "the template has errors: " + first(pr.diagnostics().errors()));
    }
    Functions fns =
        Functions.standard()
            .with(
                FunctionDef.of(
                    "templatefile",
                    2,
                    2,
                    (x, y) -> {
                      throw new FunctionException(
                          -1, "cannot recursively call templatefile from inside a template.");
                    }));
    EvalResult r = new Evaluator(fns).evaluate(pr.expression(), ctx);
    if (r.hasErrors()) {
      throw new FunctionException(
          -1, "error rendering template \"" + name + "\": " + first(r.diagnostics().errors()));
    }
    return r.value();
  }

  private static String first(List<Diagnostic> ds) {
    if (ds.isEmpty()) {
      return "unknown error";
    }
    Diagnostic d = ds.get(0);
    return (d.range() == null ? "" : d.range() + ": ") + d.summary() + ". " + d.detail();
  }

  private static Value fileset(List<Value> a, EvalContext c) {
    Path base = path(a, 0, c);
    String pattern = str(a, 1);
    if (!Files.isDirectory(base)) {
      return Value.list(List.of());
    }
    com.google.re2j.Pattern glob = RegexFunctions.glob(pattern, 1);
    TreeSet<String> out = new TreeSet<>();
    try (Stream<Path> s = Files.walk(base)) {
      s.filter(Files::isRegularFile)
          .map(base::relativize)
          .map(p -> p.toString().replace('\\', '/'))
          .filter(p -> glob.matches(p))
          .forEach(out::add);
    } catch (IOException e) {
      throw new FunctionException(0, "cannot list \"" + base + "\": " + e.getMessage());
    }
    return Value.list(out.stream().map(x -> (Value) Value.string(x)).toList());
  }

  private static Value abspath(List<Value> a, EvalContext c) {
    String p = c.baseDirectory().toAbsolutePath().resolve(str(a, 0)).normalize().toString();
    return Value.string(p.replace('\\', '/'));
  }

  /** Go's filepath.Dir. */
  static String dirname(String p) {
    if (p.isEmpty()) {
      return ".";
    }
    int i = p.lastIndexOf('/');
    String dir = i < 0 ? "" : p.substring(0, i + 1);
    return clean(dir);
  }

  /** Go's filepath.Base. */
  static String basename(String p) {
    if (p.isEmpty()) {
      return ".";
    }
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    if (p.equals("/")) {
      return "/";
    }
    int i = p.lastIndexOf('/');
    return i < 0 ? p : p.substring(i + 1);
  }

  /** Go's path.Clean. */
  private static String clean(String p) {
    if (p.isEmpty()) {
      return ".";
    }
    boolean rooted = p.startsWith("/");
    List<String> out = new ArrayList<>();
    for (String part : p.split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (!out.isEmpty() && !out.getLast().equals("..")) {
          out.removeLast();
        } else if (!rooted) {
          out.add("..");
        }
        continue;
      }
      out.add(part);
    }
    String s = String.join("/", out);
    return rooted ? "/" + s : s.isEmpty() ? "." : s;
  }

  private static Value pathexpand(List<Value> a, EvalContext c) {
    String p = str(a, 0);
    if (!p.startsWith("~")) {
      return Value.string(p);
    }
    if (p.length() > 1 && p.charAt(1) != '/') {
      return Value.string(p); // ~user is not expanded, as in Terraform
    }
    String home = System.getProperty("user.home", "");
    return Value.string(home + p.substring(1));
  }

  // ------------------------------------------------------------------ encoding

  private static Value base64gzip(List<Value> a, EvalContext c) {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bos)) {
      gz.write(utf8(str(a, 0)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return Value.string(b64(bos.toByteArray()));
  }

  private static Value urlencode(List<Value> a, EvalContext c) {
    // Go's url.QueryEscape: like URLEncoder but escapes '*' and keeps '~'
    String s = URLEncoder.encode(str(a, 0), StandardCharsets.UTF_8);
    return Value.string(s.replace("*", "%2A").replace("%7E", "~"));
  }

  private static final Map<String, UUID> UUID_NAMESPACES =
      Map.of(
          "dns", UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
          "url", UUID.fromString("6ba7b811-9dad-11d1-80b4-00c04fd430c8"),
          "oid", UUID.fromString("6ba7b812-9dad-11d1-80b4-00c04fd430c8"),
          "x500", UUID.fromString("6ba7b814-9dad-11d1-80b4-00c04fd430c8"));

  private static Value uuidv5(List<Value> a, EvalContext c) {
    String ns = str(a, 0);
    UUID namespace = UUID_NAMESPACES.get(ns);
    if (namespace == null) {
      try {
        namespace = UUID.fromString(ns);
      } catch (IllegalArgumentException e) {
        throw new FunctionException(
            0,
            "namespace must be \"dns\", \"url\", \"oid\", \"x500\" or a UUID, not \"" + ns + "\".");
      }
    }
    java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocate(16);
    bb.putLong(namespace.getMostSignificantBits()).putLong(namespace.getLeastSignificantBits());
    byte[] name = utf8(str(a, 1));
    byte[] in = new byte[16 + name.length];
    System.arraycopy(bb.array(), 0, in, 0, 16);
    System.arraycopy(name, 0, in, 16, name.length);
    byte[] h = digest("SHA-1", in);
    h[6] = (byte) ((h[6] & 0x0f) | 0x50);
    h[8] = (byte) ((h[8] & 0x3f) | 0x80);
    java.nio.ByteBuffer r = java.nio.ByteBuffer.wrap(h, 0, 16);
    return Value.string(new UUID(r.getLong(), r.getLong()).toString());
  }

  // ------------------------------------------------------------------ strings

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

  // ------------------------------------------------------------------ date and time

  private static OffsetDateTime time(List<Value> a, int i) {
    String s = str(a, i);
    try {
      return OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    } catch (DateTimeParseException e) {
      throw new FunctionException(
          i, "\"" + s + "\" is not a valid RFC 3339 timestamp, e.g. \"2018-01-02T23:12:01Z\".");
    }
  }

  /** Go's time.RFC3339 (fractional seconds only when present, {@code Z} for UTC). */
  static String rfc3339(OffsetDateTime t) {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%04d-%02d-%02dT%02d:%02d:%02d",
                t.getYear(),
                t.getMonthValue(),
                t.getDayOfMonth(),
                t.getHour(),
                t.getMinute(),
                t.getSecond()));
    if (t.getNano() != 0) {
      sb.append('.').append(String.format("%09d", t.getNano()).replaceAll("0+$", ""));
    }
    int off = t.getOffset().getTotalSeconds();
    if (off == 0) {
      sb.append('Z');
    } else {
      sb.append(off < 0 ? '-' : '+')
          .append(String.format("%02d:%02d", Math.abs(off) / 3600, Math.abs(off) / 60 % 60));
    }
    return sb.toString();
  }

  private static Value formatdate(List<Value> a, EvalContext c) {
    String spec = str(a, 0);
    OffsetDateTime t = time(a, 1);
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < spec.length()) {
      char ch = spec.charAt(i);
      if (ch == '\'') {
        int j = i + 1;
        StringBuilder lit = new StringBuilder();
        while (true) {
          if (j >= spec.length()) {
            throw new FunctionException(0, "unterminated literal quote in the format.");
          }
          if (spec.charAt(j) == '\'') {
            if (j + 1 < spec.length() && spec.charAt(j + 1) == '\'') {
              lit.append('\'');
              j += 2;
              continue;
            }
            break;
          }
          lit.append(spec.charAt(j++));
        }
        sb.append(i + 1 == j ? "'" : lit); // '' is a literal quote
        i = j + 1;
        continue;
      }
      if (!Character.isLetter(ch)) {
        sb.append(ch);
        i++;
        continue;
      }
      int j = i;
      while (j < spec.length() && spec.charAt(j) == ch) {
        j++;
      }
      String seq = spec.substring(i, j);
      i = j;
      int off = t.getOffset().getTotalSeconds();
      String offSign = off < 0 ? "-" : "+";
      int oh = Math.abs(off) / 3600;
      int om = Math.abs(off) / 60 % 60;
      int h12 = t.getHour() % 12 == 0 ? 12 : t.getHour() % 12;
      sb.append(
          switch (seq) {
            case "YYYY" -> String.format("%04d", t.getYear());
            case "YY" -> String.format("%02d", t.getYear() % 100);
            case "MMMM" -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            case "MMM" -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "MM" -> String.format("%02d", t.getMonthValue());
            case "M" -> Integer.toString(t.getMonthValue());
            case "DD" -> String.format("%02d", t.getDayOfMonth());
            case "D" -> Integer.toString(t.getDayOfMonth());
            case "EEEE" -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            case "EEE" -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "hh" -> String.format("%02d", t.getHour());
            case "h" -> Integer.toString(t.getHour());
            case "HH" -> String.format("%02d", h12);
            case "H" -> Integer.toString(h12);
            case "AA" -> t.getHour() < 12 ? "AM" : "PM";
            case "aa" -> t.getHour() < 12 ? "am" : "pm";
            case "mm" -> String.format("%02d", t.getMinute());
            case "m" -> Integer.toString(t.getMinute());
            case "ss" -> String.format("%02d", t.getSecond());
            case "s" -> Integer.toString(t.getSecond());
            case "ZZZZZ" -> off == 0 ? "+00:00" : String.format("%s%02d:%02d", offSign, oh, om);
            case "ZZZZ" -> String.format("%s%02d%02d", off < 0 ? "-" : "+", oh, om);
            case "ZZZ" -> off == 0 ? "UTC" : String.format("%s%02d%02d", offSign, oh, om);
            case "Z" -> off == 0 ? "Z" : String.format("%s%02d:%02d", offSign, oh, om);
            default ->
                throw new FunctionException(
                    0,
                    "invalid date format verb \""
                        + seq
                        + "\"; put literal text in single quotes, e.g. 'at'.");
          });
    }
    return Value.string(sb.toString());
  }

  /** Go's time.ParseDuration. */
  static Duration parseDuration(String s, int argIndex) {
    boolean neg = s.startsWith("-");
    String unsigned = neg || s.startsWith("+") ? s.substring(1) : s;
    BigDecimal nanos =
        GoDurations.nanos(unsigned)
            .orElseThrow(
                () ->
                    new FunctionException(
                        argIndex,
                        "invalid duration \""
                            + s
                            + "\"; use a number and unit, e.g. \"1h30m\" or \"-10s\"."));
    Duration d = Duration.ofNanos(nanos.longValue());
    return neg ? d.negated() : d;
  }

  private static Value timeadd(List<Value> a, EvalContext c) {
    OffsetDateTime t = time(a, 0);
    return Value.string(rfc3339(t.plus(parseDuration(str(a, 1), 1))));
  }

  // ------------------------------------------------------------------ numeric

  private static Value parseint(List<Value> a, EvalContext c) {
    String s = str(a, 0);
    int base = integer(a, 1);
    if (base < 2 || base > 62) {
      throw new FunctionException(1, "the base must be between 2 and 62, inclusive.");
    }
    String digits = s.startsWith("-") || s.startsWith("+") ? s.substring(1) : s;
    if (digits.isEmpty()) {
      throw new FunctionException(0, "cannot parse \"" + s + "\" as a base " + base + " integer.");
    }
    BigInteger n = BigInteger.ZERO;
    BigInteger b = BigInteger.valueOf(base);
    for (char ch : digits.toCharArray()) {
      int d;
      if (ch >= '0' && ch <= '9') {
        d = ch - '0';
      } else if (ch >= 'a' && ch <= 'z') {
        d = ch - 'a' + 10;
      } else if (ch >= 'A' && ch <= 'Z') {
        d = base <= 36 ? ch - 'A' + 10 : ch - 'A' + 36;
      } else {
        d = 99;
      }
      if (d >= base) {
        throw new FunctionException(
            0, "cannot parse \"" + s + "\" as a base " + base + " integer.");
      }
      n = n.multiply(b).add(BigInteger.valueOf(d));
    }
    return Value.number(new BigDecimal(s.startsWith("-") ? n.negate() : n));
  }

  private static Value number(double d, String what) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new FunctionException(-1, what + " is not a finite number.");
    }
    return Value.number(new BigDecimal(d, MathContext.DECIMAL64).stripTrailingZeros());
  }

  private static Value log(List<Value> a, EvalContext c) {
    double x = num(a, 0).doubleValue();
    double b = num(a, 1).doubleValue();
    return number(Math.log(x) / Math.log(b), "the result of log");
  }

  private static Value pow(List<Value> a, EvalContext c) {
    BigDecimal x = num(a, 0);
    BigDecimal y = num(a, 1);
    if (y.signum() >= 0
        && y.stripTrailingZeros().scale() <= 0
        && y.compareTo(BigDecimal.valueOf(999)) <= 0) {
      return Value.number(x.pow(y.intValue()));
    }
    return number(Math.pow(x.doubleValue(), y.doubleValue()), "the result of pow");
  }

  private static Value sum(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    if (l.isEmpty()) {
      throw new FunctionException(0, "cannot sum an empty list.");
    }
    BigDecimal s = BigDecimal.ZERO;
    for (int i = 0; i < l.size(); i++) {
      s = s.add(num(l, i));
    }
    return Value.number(s);
  }

  // ------------------------------------------------------------------ collections

  private static Value index(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    for (int i = 0; i < l.size(); i++) {
      if (Conversions.valuesEqual(l.get(i), a.get(1))) {
        return Value.number(i);
      }
    }
    throw new FunctionException(1, "item " + a.get(1).render() + " not found in the list.");
  }

  private static Value slice(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    int from = integer(a, 1);
    int to = integer(a, 2);
    if (from < 0) {
      throw new FunctionException(1, "the start index must not be negative.");
    }
    if (to > l.size()) {
      throw new FunctionException(
          2, "the end index must not be greater than the length of the list (" + l.size() + ").");
    }
    if (from > to) {
      throw new FunctionException(1, "the start index must not be greater than the end index.");
    }
    return Value.list(l.subList(from, to));
  }

  private static Value sort(List<Value> a, EvalContext c) {
    List<String> out = new ArrayList<>();
    List<Value> l = list(a, 0);
    for (int i = 0; i < l.size(); i++) {
      if (l.get(i).isNull()) {
        throw new FunctionException(0, "the list must not contain null elements.");
      }
      out.add(str(l, i));
    }
    out.sort(null);
    return Value.list(out.stream().map(x -> (Value) Value.string(x)).toList());
  }

  /**
   * A set as Terraform orders it: duplicates removed; strings in lexical order, numbers ascending;
   * other element types keep their first-seen order.
   */
  static List<Value> toSet(List<Value> in, EvalBudget budget) {
    // strings and numbers (the usual sets): sorted and deduplicated in O(n log n)
    if (in.stream().allMatch(v -> v instanceof Value.StringValue)) {
      java.util.TreeMap<String, Value> byText = new java.util.TreeMap<>();
      in.forEach(v -> byText.putIfAbsent(((Value.StringValue) v).value(), v));
      return new ArrayList<>(byText.values());
    }
    if (in.stream().allMatch(v -> v instanceof Value.NumberValue)) {
      java.util.TreeMap<java.math.BigDecimal, Value> byNumber = new java.util.TreeMap<>();
      in.forEach(v -> byNumber.putIfAbsent(((Value.NumberValue) v).value(), v));
      return new ArrayList<>(byNumber.values());
    }
    List<Value> out = new ArrayList<>();
    for (Value v : in) {
      budget.checkDeadline(null); // quadratic in the number of elements
      if (out.stream().noneMatch(x -> Conversions.valuesEqual(x, v))) {
        out.add(v);
      }
    }
    if (out.stream().allMatch(v -> v instanceof Value.StringValue)) {
      out.sort(
          (x, y) -> ((Value.StringValue) x).value().compareTo(((Value.StringValue) y).value()));
    } else if (out.stream().allMatch(v -> v instanceof Value.NumberValue)) {
      out.sort(
          (x, y) -> ((Value.NumberValue) x).value().compareTo(((Value.NumberValue) y).value()));
    }
    return out;
  }

  /** Whether {@code l} holds {@code v}; linear, so callers that loop over it stop on time. */
  private static boolean containsValue(List<Value> l, Value v, EvalBudget budget) {
    budget.checkDeadline(null);
    return l.stream().anyMatch(x -> Conversions.valuesEqual(x, v));
  }

  private static Value setunion(List<Value> a, EvalContext c) {
    List<Value> all = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      all.addAll(list(a, i));
    }
    return Value.list(toSet(all, EvalBudget.of(c)));
  }

  private static Value setintersection(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>(list(a, 0));
    for (int i = 1; i < a.size(); i++) {
      List<Value> other = list(a, i);
      out.removeIf(v -> !containsValue(other, v, EvalBudget.of(c)));
    }
    return Value.list(toSet(out, EvalBudget.of(c)));
  }

  private static Value setsubtract(List<Value> a, EvalContext c) {
    List<Value> out = new ArrayList<>(list(a, 0));
    List<Value> other = list(a, 1);
    out.removeIf(v -> containsValue(other, v, EvalBudget.of(c)));
    return Value.list(toSet(out, EvalBudget.of(c)));
  }

  private static Value setproduct(List<Value> a, EvalContext c) {
    long product = 1;
    for (int i = 0; i < a.size(); i++) {
      int size = list(a, i).size();
      product = size == 0 ? 0 : Math.min(Integer.MAX_VALUE, product * size);
    }
    // counted before it is built: the product of a few large sets is too large to build
    EvalBudget.of(c).chargeElements(product * a.size(), "setproduct()");
    List<List<Value>> acc = new ArrayList<>();
    acc.add(List.of());
    for (int i = 0; i < a.size(); i++) {
      List<Value> l = list(a, i);
      List<List<Value>> next = new ArrayList<>();
      for (List<Value> prefix : acc) {
        for (Value v : l) {
          List<Value> p = new ArrayList<>(prefix);
          p.add(v);
          next.add(p);
        }
      }
      acc = next;
    }
    return Value.list(acc.stream().map(x -> (Value) Value.list(x)).toList());
  }

  private static Value transpose(List<Value> a, EvalContext c) {
    Map<String, List<Value>> out = new TreeMap<>();
    for (Map.Entry<String, Value> e : map(a, 0).entrySet()) {
      if (!(e.getValue() instanceof Value.ListValue l)) {
        throw new FunctionException(0, "the map values must be lists of strings.");
      }
      for (int i = 0; i < l.elements().size(); i++) {
        out.computeIfAbsent(str(l.elements(), i), k -> new ArrayList<>())
            .add(Value.string(e.getKey()));
      }
    }
    Map<String, Value> m = new LinkedHashMap<>();
    out.forEach((k, v) -> m.put(k, Value.list(v)));
    return Value.object(m);
  }

  private static Value one(List<Value> a, EvalContext c) {
    if (a.get(0).isNull()) {
      return Value.NULL;
    }
    List<Value> l = list(a, 0);
    return switch (l.size()) {
      case 0 -> Value.NULL;
      case 1 -> l.get(0);
      default ->
          throw new FunctionException(
              0, "must be a list, set, or tuple value with either zero or one elements.");
    };
  }

  private static Value allAny(List<Value> a, boolean all) {
    List<Value> l = list(a, 0);
    for (int i = 0; i < l.size(); i++) {
      Value v = l.get(i);
      boolean b =
          !v.isNull()
              && Conversions.toBool(v)
                  .orElseThrow(() -> new FunctionException(0, "the list elements must be bools."));
      if (all && !b) {
        return Value.FALSE;
      }
      if (!all && b) {
        return Value.TRUE;
      }
    }
    return Value.bool(all);
  }

  private static Value coalescelist(List<Value> a, EvalContext c) {
    for (int i = 0; i < a.size(); i++) {
      if (!list(a, i).isEmpty()) {
        return a.get(i);
      }
    }
    throw new FunctionException(-1, "no non-null, non-empty arguments.");
  }

  private static Value chunklist(List<Value> a, EvalContext c) {
    List<Value> l = list(a, 0);
    int size = integer(a, 1);
    if (size < 0) {
      throw new FunctionException(1, "the size argument must be positive.");
    }
    if (size == 0) {
      return Value.list(List.of(Value.list(l)));
    }
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < l.size(); i += size) {
      out.add(Value.list(l.subList(i, Math.min(l.size(), i + size))));
    }
    return Value.list(out);
  }

  private static Value matchkeys(List<Value> a, EvalContext c) {
    List<Value> values = list(a, 0);
    List<Value> keys = list(a, 1);
    List<Value> search = list(a, 2);
    if (values.size() != keys.size()) {
      throw new FunctionException(-1, "the length of keys and values should be equal.");
    }
    List<Value> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (containsValue(search, keys.get(i), EvalBudget.of(c))) {
        out.add(values.get(i));
      }
    }
    return Value.list(out);
  }

  // ------------------------------------------------------------------ IP network

  /** An IPv4 or IPv6 prefix: {@code bits} is 32 or 128. */
  private record Cidr(BigInteger ip, int prefix, int bits) {
    BigInteger hostMask() {
      return BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE);
    }

    BigInteger network() {
      return ip.andNot(hostMask());
    }

    String format(BigInteger addr) {
      return bits == 32 ? ipv4(addr) : ipv6(addr);
    }
  }

  private static Cidr cidr(List<Value> a, int i) {
    String s = str(a, i);
    int slash = s.indexOf('/');
    if (slash < 0) {
      throw new FunctionException(
          i, "invalid CIDR address \"" + s + "\"; expected e.g. 10.0.0.0/16.");
    }
    String host = s.substring(0, slash);
    int prefix;
    try {
      prefix = Integer.parseInt(s.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new FunctionException(i, "invalid prefix length in \"" + s + "\".");
    }
    BigInteger ip;
    int bits;
    if (host.contains(":")) {
      ip = parseIpv6(host, i);
      bits = 128;
    } else {
      ip = parseIpv4(host, i);
      bits = 32;
    }
    if (prefix < 0 || prefix > bits) {
      throw new FunctionException(i, "invalid prefix length in \"" + s + "\".");
    }
    return new Cidr(ip, prefix, bits);
  }

  private static BigInteger parseIpv4(String s, int argIndex) {
    String[] p = s.split("\\.", -1);
    if (p.length != 4) {
      throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
    }
    long v = 0;
    for (String part : p) {
      if (!part.matches("\\d{1,3}")
          || Integer.parseInt(part) > 255
          || (part.length() > 1 && part.startsWith("0"))) {
        throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
      }
      v = v << 8 | Integer.parseInt(part);
    }
    return BigInteger.valueOf(v);
  }

  private static BigInteger parseIpv6(String s, int argIndex) {
    if (!s.matches("[0-9a-fA-F:.]+")) {
      throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
    }
    try {
      byte[] b = java.net.InetAddress.getByName(s).getAddress();
      if (b.length != 16) {
        throw new FunctionException(argIndex, "invalid IPv6 address \"" + s + "\".");
      }
      return new BigInteger(1, b);
    } catch (java.net.UnknownHostException e) {
      throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
    }
  }

  private static String ipv4(BigInteger v) {
    long x = v.longValue();
    return (x >> 24 & 255) + "." + (x >> 16 & 255) + "." + (x >> 8 & 255) + "." + (x & 255);
  }

  /** RFC 5952 text form, as Go prints IPv6 addresses. */
  private static String ipv6(BigInteger v) {
    int[] g = new int[8];
    for (int i = 0; i < 8; i++) {
      g[i] = v.shiftRight(16 * (7 - i)).intValue() & 0xffff;
    }
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      if (g[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(g[i]));
    }
    return sb.toString();
  }

  private static Value cidrhost(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    BigInteger host = num(a, 1).toBigInteger();
    BigInteger size = n.hostMask().add(BigInteger.ONE);
    if (host.signum() < 0) {
      host = size.add(host);
    }
    if (host.signum() < 0 || host.compareTo(size) >= 0) {
      throw new FunctionException(
          1,
          "prefix of "
              + n.prefix()
              + " does not accommodate a host numbered "
              + num(a, 1).toPlainString()
              + ".");
    }
    return Value.string(n.format(n.network().add(host)));
  }

  private static Value cidrnetmask(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    if (n.bits() != 32) {
      throw new FunctionException(0, "cidrnetmask only supports IPv4 prefixes.");
    }
    return Value.string(
        ipv4(n.hostMask().xor(BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE))));
  }

  private static Value cidrsubnet(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    int newbits = integer(a, 1);
    BigInteger netnum = num(a, 2).toBigInteger();
    int len = n.prefix() + newbits;
    if (newbits < 0 || len > n.bits()) {
      throw new FunctionException(
          1,
          "insufficient address space to extend prefix of " + n.prefix() + " by " + newbits + ".");
    }
    if (netnum.signum() < 0 || netnum.bitLength() > newbits) {
      throw new FunctionException(
          2,
          "prefix extension of "
              + newbits
              + " does not accommodate a subnet numbered "
              + netnum
              + ".");
    }
    BigInteger ip = n.network().or(netnum.shiftLeft(n.bits() - len));
    return Value.string(n.format(ip) + "/" + len);
  }

  private static Value cidrsubnets(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    if (a.size() == 1) {
      return Value.list(List.of());
    }
    BigInteger base = n.network();
    BigInteger all = BigInteger.ONE.shiftLeft(n.bits()).subtract(BigInteger.ONE);
    int firstLen = n.prefix() + integer(a, 1);
    if (integer(a, 1) < 1 || firstLen > n.bits()) {
      throw new FunctionException(
          1,
          "would extend prefix to "
              + firstLen
              + " bits, which is too long for an IPv"
              + (n.bits() == 32 ? 4 : 6)
              + " address.");
    }
    // the subnet just before the first one, so that "next" yields the first
    BigInteger curIp = base.subtract(BigInteger.ONE).and(all);
    int curLen = firstLen;
    curIp = curIp.andNot(hostMask(n.bits(), curLen));
    List<Value> out = new ArrayList<>();
    for (int i = 1; i < a.size(); i++) {
      int newbits = integer(a, i);
      int len = n.prefix() + newbits;
      if (newbits < 1 || len > n.bits()) {
        throw new FunctionException(
            i,
            "would extend prefix to "
                + len
                + " bits, which is too long for an IPv"
                + (n.bits() == 32 ? 4 : 6)
                + " address.");
      }
      BigInteger lastOfCur = curIp.or(hostMask(n.bits(), curLen));
      BigInteger sub = lastOfCur.andNot(hostMask(n.bits(), len));
      BigInteger next = sub.or(hostMask(n.bits(), len)).add(BigInteger.ONE);
      if (next.compareTo(all) > 0 || !next.andNot(n.hostMask()).equals(base)) {
        throw new FunctionException(
            i,
            "not enough remaining address space for a subnet with a prefix of "
                + len
                + " bits after "
                + n.format(curIp)
                + "/"
                + curLen
                + ".");
      }
      curIp = next;
      curLen = len;
      out.add(Value.string(n.format(curIp) + "/" + curLen));
    }
    return Value.list(out);
  }

  private static BigInteger hostMask(int bits, int prefix) {
    return BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE);
  }
}
