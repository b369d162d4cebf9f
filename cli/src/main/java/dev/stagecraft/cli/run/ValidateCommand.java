package dev.stagecraft.cli.run;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.planner.plan.Planner;
import java.util.List;
import java.util.Map;

/** {@code stagecraft validate}: checks the configuration locally, without a server or state. */
public final class ValidateCommand implements Command {
  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    Map<String, String> files = ConfigDirectory.read(ctx.workingDir());
    if (files.isEmpty()) {
      ctx.err().println(Configs.NO_FILES.formatted(ctx.workingDir()));
      return 1;
    }
    Diagnostics diagnostics = Planner.validate(files, ctx.workingDir());
    if (!diagnostics.isEmpty()) {
      ctx.err().print(diagnostics.render(files));
    }
    if (diagnostics.hasErrors()) {
      return 1;
    }
    ctx.out().println("Success! The configuration is valid.");
    return 0;
  }

  @Override
  public String synopsis() {
    return "validate                 Check the configuration in the directory";
  }
}
