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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options shared by plan, apply and destroy, parsed Terraform's way ({@code -name=value} or
 * {@code -name value}; flags before positional arguments).
 */
public final class RunOptions {
  String workspace = "default";
  final Map<String, String> variables = new LinkedHashMap<>();

  /** The names among {@link #variables} whose values came from a {@code -var-file} (HCL). */
  final Set<String> hclVariables = new HashSet<>();

  final List<String> replace = new ArrayList<>();
  boolean autoApprove;
  boolean json;
  boolean detailedExitCode;

  /** {@code -upgrade}: pin git modules to what their refs name now (docs/adr/0065). */
  boolean upgrade;

  String out;
  final List<String> positional = new ArrayList<>();

  static RunOptions parse(CliContext ctx, List<String> args, boolean allowsApproval)
      throws IOException {
    RunOptions o = new RunOptions();
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
        case "upgrade" -> o.upgrade = true;
        case "workspace", "var", "var-file", "replace", "out" -> {
          if (value == null) {
            if (i + 1 >= args.size()) {
              throw new UsageException("-" + name + " needs a value");
            }
            value = args.get(++i);
          }
          switch (name) {
            case "workspace" -> o.workspace = value;
            case "var" -> {
              String[] v = splitVar(value);
              o.variables.put(v[0], v[1]);
              o.hclVariables.remove(v[0]);
            }
            case "var-file" -> {
              Map<String, String> file = readVarFile(ctx.workingDir().resolve(value));
              o.variables.putAll(file);
              o.hclVariables.addAll(file.keySet());
            }
            case "out" -> o.out = value;
            default -> o.replace.add(value);
          }
        }
        default -> throw new UsageException("unknown option -" + name);
      }
    }
    // -var and -var-file apply in command-line order: a later one wins
    return o;
  }

  /**
   * Every variable value in Terraform's precedence, lowest first: environment ({@code TF_VAR_name},
   * then {@code STAGECRAFT_VAR_name}), {@code terraform.tfvars}, {@code terraform.tfvars.json},
   * {@code *.auto.tfvars} and {@code *.auto.tfvars.json} in lexical order, then {@code -var}/{@code
   * -var-file} in command-line order. Values from the environment and from the automatic files are
   * kept only for declared variables (as Terraform does); an undeclared {@code -var} is left in,
   * for the planner to report. Values from files are HCL expressions (their names in {@link
   * VariableInputs#hcl}), the others strings.
   */
  VariableInputs allVariables(CliContext ctx, Set<String> declared) throws IOException {
    Map<String, String> all = new LinkedHashMap<>();
    Set<String> hcl = new HashSet<>();
    for (String prefix : List.of("TF_VAR_", "STAGECRAFT_VAR_")) {
      ctx.env()
          .forEach(
              (k, v) -> {
                if (k.startsWith(prefix) && declared.contains(k.substring(prefix.length()))) {
                  all.put(k.substring(prefix.length()), v);
                }
              });
    }
    List<Path> automatic = new ArrayList<>();
    for (String name : List.of("terraform.tfvars", "terraform.tfvars.json")) {
      Path tfvars = ctx.workingDir().resolve(name);
      if (Files.isRegularFile(tfvars)) {
        automatic.add(tfvars);
      }
    }
    try (var files = Files.list(ctx.workingDir())) {
      files
          .filter(
              f ->
                  f.getFileName().toString().endsWith(".auto.tfvars")
                      || f.getFileName().toString().endsWith(".auto.tfvars.json"))
          .sorted()
          .forEach(automatic::add);
    }
    for (Path file : automatic) {
      readVarFile(file)
          .forEach(
              (k, v) -> {
                if (declared.contains(k)) {
                  all.put(k, v);
                  hcl.add(k);
                }
              });
    }
    all.putAll(variables);
    hcl.removeAll(variables.keySet());
    hcl.addAll(hclVariables);
    return new VariableInputs(all, hcl);
  }

  /**
   * Variable values by name, and the names whose values are HCL expressions (from variable files)
   * rather than strings ({@code -var}, the environment).
   */
  record VariableInputs(Map<String, String> values, Set<String> hcl) {}

  private static String[] splitVar(String value) {
    int eq = value.indexOf('=');
    if (eq <= 0) {
      throw new UsageException(
          "-var expects NAME=VALUE (for example -var 'revision=abc123'), got \"" + value + "\"");
    }
    return new String[] {value.substring(0, eq), value.substring(eq + 1)};
  }

  /**
   * A {@code .tfvars} file: {@code name = value} lines in HCL, checked here (an error names the
   * file, line and column) and sent as each value's expression text, so that the planner gives it
   * its own type as Terraform does ({@code nodes = ["a", "b"]} is a list, not a string).
   */
  static Map<String, String> readVarFile(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new UsageException("the variable file " + file + " does not exist");
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    if (file.getFileName().toString().endsWith(".json")) {
      return JsonVarFile.parse(file.toString(), text);
    }
    ParseResult parsed = Parser.parse(file.getFileName().toString(), text);
    Diagnostics diagnostics = new Diagnostics().addAll(parsed.diagnostics());
    Map<String, String> out = new LinkedHashMap<>();
    Evaluator evaluator = new Evaluator();
    for (Body.Attribute a : parsed.body().attributes()) {
      EvalResult r = evaluator.evaluate(a.expr(), SimpleEvalContext.empty());
      diagnostics.addAll(r.diagnostics());
      if (!r.hasErrors()) {
        out.put(
            a.name(),
            text.substring(a.expr().range().start().offset(), a.expr().range().end().offset()));
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
