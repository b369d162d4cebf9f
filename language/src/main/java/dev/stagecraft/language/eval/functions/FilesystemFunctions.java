package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.b64;
import static dev.stagecraft.language.eval.functions.Args.decodeUtf8;
import static dev.stagecraft.language.eval.functions.Args.map;
import static dev.stagecraft.language.eval.functions.Args.path;
import static dev.stagecraft.language.eval.functions.Args.readFile;
import static dev.stagecraft.language.eval.functions.Args.str;

import com.google.re2j.Pattern;
import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.eval.EvalBudget;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Terraform's filesystem functions, paths relative to {@link EvalContext#baseDirectory()}. */
final class FilesystemFunctions {
  private FilesystemFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("file", 1, 1, (a, c) -> Value.string(readText(a, c))))
        .with(
            FunctionDef.of(
                "fileexists", 1, 1, (a, c) -> Value.bool(Files.isRegularFile(path(a, 0, c)))))
        .with(FunctionDef.of("fileset", 2, 2, FilesystemFunctions::fileset))
        .with(FunctionDef.of("templatefile", 2, 2, FilesystemFunctions::templatefile))
        .with(FunctionDef.of("abspath", 1, 1, FilesystemFunctions::abspath))
        .with(FunctionDef.of("dirname", 1, 1, (a, c) -> Value.string(dirname(str(a, 0)))))
        .with(FunctionDef.of("basename", 1, 1, (a, c) -> Value.string(basename(str(a, 0)))))
        .with(FunctionDef.of("pathexpand", 1, 1, FilesystemFunctions::pathexpand))
        .with(
            FunctionDef.of("filebase64", 1, 1, (a, c) -> Value.string(b64(readFile(a, c, true)))));
  }

  private static String readText(List<Value> a, EvalContext c) {
    byte[] raw = readFile(a, c, true);
    try {
      return decodeUtf8(raw);
    } catch (CharacterCodingException e) {
      throw new FunctionException(
          0,
          "contents of \""
              + str(a, 0)
              + "\" are not valid UTF-8; use filebase64 to read binary files.");
    }
  }

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
      text = decodeUtf8(readFile(a, c, false));
    } catch (CharacterCodingException e) {
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
    Pattern glob = Regexes.glob(pattern, 1);
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
}
