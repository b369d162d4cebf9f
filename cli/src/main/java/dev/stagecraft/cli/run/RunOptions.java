package dev.stagecraft.cli.run;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options shared by plan, apply and destroy, parsed Terraform's way ({@code -name=value} or
 * {@code -name value}; flags before positional arguments).
 */
public final class RunOptions {
  String workspace = "default";
  final Map<String, String> variables = new LinkedHashMap<>();
  final List<String> replace = new ArrayList<>();
  boolean autoApprove;
  boolean json;
  boolean detailedExitCode;
  final List<String> positional = new ArrayList<>();

  static RunOptions parse(CliContext ctx, List<String> args, boolean allowsApproval)
      throws IOException {
    RunOptions o = new RunOptions();
    List<String> varFiles = new ArrayList<>();
    List<String[]> vars = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("-")) {
        o.positional.add(arg);
        continue;
      }
      String name = arg.replaceFirst("^--?", "");
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      switch (name) {
        case "auto-approve" -> {
          if (!allowsApproval) {
            throw new UsageException("-auto-approve is only valid for apply and destroy");
          }
          o.autoApprove = true;
        }
        case "json" -> o.json = true;
        case "detailed-exitcode" -> o.detailedExitCode = true;
        case "workspace", "var", "var-file", "replace" -> {
          if (value == null) {
            if (i + 1 >= args.size()) {
              throw new UsageException("-" + name + " needs a value");
            }
            value = args.get(++i);
          }
          switch (name) {
            case "workspace" -> o.workspace = value;
            case "var" -> vars.add(splitVar(value));
            case "var-file" -> varFiles.add(value);
            default -> o.replace.add(value);
          }
        }
        default -> throw new UsageException("unknown option -" + name);
      }
    }
    // precedence as in Terraform: -var-file and -var in command-line order, later wins
    for (String file : varFiles) {
      o.variables.putAll(readVarFile(ctx.workingDir().resolve(file)));
    }
    for (String[] v : vars) {
      o.variables.put(v[0], v[1]);
    }
    return o;
  }

  private static String[] splitVar(String value) {
    int eq = value.indexOf('=');
    if (eq <= 0) {
      throw new UsageException(
          "-var expects NAME=VALUE (for example -var 'revision=abc123'), got \"" + value + "\"");
    }
    return new String[] {value.substring(0, eq), value.substring(eq + 1)};
  }

  /** A {@code .tfvars} file: {@code name = value} lines in HCL. */
  static Map<String, String> readVarFile(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new UsageException("the variable file " + file + " does not exist");
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    ParseResult parsed = Parser.parse(file.getFileName().toString(), text);
    Diagnostics diagnostics = new Diagnostics().addAll(parsed.diagnostics());
    Map<String, String> out = new LinkedHashMap<>();
    Evaluator evaluator = new Evaluator();
    for (Body.Attribute a : parsed.body().attributes()) {
      EvalResult r = evaluator.evaluate(a.expr(), SimpleEvalContext.empty());
      diagnostics.addAll(r.diagnostics());
      if (!r.hasErrors()) {
        out.put(a.name(), r.value().asString());
      }
    }
    if (diagnostics.hasErrors()) {
      throw new UsageException(
          "invalid variable file "
              + file
              + ":\n"
              + diagnostics.render(Map.of(file.getFileName().toString(), text)));
    }
    return out;
  }
}
