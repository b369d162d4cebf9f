package dev.stagecraft.cli.run;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.modules.GitModules;
import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.VariableDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.plan.CheckAssertions;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Reading and checking the configuration of the working directory before talking to a server. */
final class Configs {
  static final String NO_FILES =
      "Error: No configuration files in %s.\n\n"
          + "Stagecraft reads *.tf and *.tf.json files from the working directory (or -chdir=DIR).";

  private Configs() {}

  /**
   * The directory's files, or null after printing why they cannot be used: every configuration
   * error is reported locally, with file:line:col, before anything is sent.
   */
  static Checked loadChecked(CliContext ctx, RunOptions options, boolean destroy)
      throws IOException {
    Map<String, String> files = ConfigDirectory.read(ctx.workingDir());
    if (files.isEmpty()) {
      ctx.err().println(NO_FILES.formatted(ctx.workingDir()));
      return null;
    }
    Map<String, String> supportFiles;
    try {
      List<String> modules;
      try {
        modules = GitModules.prepare(ctx.workingDir(), ctx.env(), files, options.upgrade);
      } catch (GitModules.Failure e) {
        ctx.err().print(e.getMessage());
        return null;
      }
      supportFiles = ConfigDirectory.readSupportFiles(ctx.workingDir(), modules);
    } catch (ConfigDirectory.TooLargeException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return null;
    }
    Configuration config = ConfigLoader.load(files).config();
    RunOptions.VariableInputs inputs = options.allVariables(ctx, config.variables().keySet());
    Map<String, String> variables = inputs.values();
    Set<String> sensitive = new TreeSet<>();
    config.variables().values().stream()
        .filter(VariableDecl::sensitive)
        .forEach(v -> sensitive.add(v.name()));
    PlanResult check =
        Planner.plan(
            new PlanRequest(
                options.workspace,
                files,
                variables,
                options.replace,
                destroy,
                ctx.workingDir(),
                false,
                inputs.hcl()),
            PriorState.empty());
    // check blocks are reported by the server's plan, against the workspace's state: their
    // outcome against the empty state planned here would mislead
    Diagnostics diagnostics = new Diagnostics();
    check.diagnostics().list().stream()
        .filter(d -> !CheckAssertions.isCheckResult(d))
        .forEach(diagnostics::add);
    if (!diagnostics.isEmpty()) {
      ctx.err().print(diagnostics.render(files));
    }
    return diagnostics.hasErrors()
        ? null
        : new Checked(files, supportFiles, variables, inputs.hcl(), sensitive);
  }

  /**
   * A configuration that passed the local checks, with every variable value resolved.
   *
   * @param supportFiles the directory's other files (relative path → base64), sent with it
   * @param hclVariables the names among {@code variables} whose values are HCL expressions
   */
  record Checked(
      Map<String, String> files,
      Map<String, String> supportFiles,
      Map<String, String> variables,
      Set<String> hclVariables,
      Set<String> sensitive) {

    /** The sensitive variables that have a value in this invocation (name → value). */
    Map<String, String> givenSensitive() {
      Map<String, String> out = new TreeMap<>(variables);
      out.keySet().retainAll(sensitive);
      return out;
    }

    /** The variables without the values of those declared sensitive (for saved plans). */
    Map<String, String> nonSensitiveVariables() {
      Map<String, String> out = new LinkedHashMap<>(variables);
      out.keySet().removeAll(sensitive);
      return out;
    }
  }

  static Map<String, Object> body(RunOptions options, Checked config, boolean destroy) {
    return body(options, config, config.variables(), destroy);
  }

  /**
   * The plan or run request: the configuration files, the supporting files (so {@code file()} and
   * provisioners find them on the server; saved plans hold them too), variables and options.
   */
  static Map<String, Object> body(
      RunOptions options, Checked config, Map<String, String> variables, boolean destroy) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("workspace", options.workspace);
    body.put("files", config.files());
    body.put("supportFiles", config.supportFiles());
    body.put("variables", variables);
    // values from variable files are HCL expressions: they keep their own type
    Set<String> hcl = new TreeSet<>(config.hclVariables());
    hcl.retainAll(variables.keySet());
    if (!hcl.isEmpty()) {
      body.put("hclVariables", hcl);
    }
    body.put("destroy", destroy);
    body.put("replace", options.replace);
    return body;
  }
}
