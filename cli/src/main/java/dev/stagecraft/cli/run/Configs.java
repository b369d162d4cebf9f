package dev.stagecraft.cli.run;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

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
  static Map<String, String> loadChecked(CliContext ctx, RunOptions options, boolean destroy)
      throws IOException {
    Map<String, String> files = ConfigDirectory.read(ctx.workingDir());
    if (files.isEmpty()) {
      ctx.err().println(NO_FILES.formatted(ctx.workingDir()));
      return null;
    }
    PlanResult check =
        Planner.plan(
            new PlanRequest(
                options.workspace,
                files,
                options.variables,
                options.replace,
                destroy,
                ctx.workingDir()),
            PriorState.empty());
    Diagnostics diagnostics = check.diagnostics();
    if (!diagnostics.isEmpty()) {
      ctx.err().print(diagnostics.render(files));
    }
    return diagnostics.hasErrors() ? null : files;
  }

  static Map<String, Object> body(RunOptions options, Map<String, String> files, boolean destroy) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("workspace", options.workspace);
    body.put("files", files);
    body.put("variables", options.variables);
    body.put("destroy", destroy);
    body.put("replace", options.replace);
    return body;
  }
}
