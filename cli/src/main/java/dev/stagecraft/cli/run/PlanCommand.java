package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import java.util.List;

/**
 * {@code stagecraft plan}: shows what an apply would do. Changes nothing. With {@code
 * -detailed-exitcode}: 0 no changes, 2 changes, 1 error.
 */
public final class PlanCommand implements Command {
  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    RunOptions options = RunOptions.parse(ctx, args, false);
    Configs.Checked config = Configs.loadChecked(ctx, options, false);
    if (config == null) {
      return 1;
    }
    ApiClient api = Server.client(ctx);
    JsonNode result;
    try {
      result = api.post(api.api("plans"), Configs.body(options, config, false));
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
    if (options.out != null) {
      // sensitive values are not written to the file: apply FILE takes them from the
      // environment or the automatic variable files again
      SavedPlan.write(
          ctx.workingDir().resolve(options.out),
          Configs.body(options, config, config.nonSensitiveVariables(), false),
          result,
          config.givenSensitive());
    }
    if (options.json) {
      ctx.out().println(new ObjectMapper().writeValueAsString(result.get("plan")));
    } else {
      ctx.out().print(result.get("rendered").asText());
      if (options.out != null) {
        ctx.out().println();
        ctx.out().println("Saved the plan to: " + options.out);
        ctx.out().println();
        ctx.out().println("To perform exactly these actions, run:");
        ctx.out().println("  stagecraft apply \"" + options.out + "\"");
      }
    }
    boolean changes = result.get("has_changes").asBoolean();
    return options.detailedExitCode && changes ? 2 : 0;
  }

  @Override
  public String synopsis() {
    return "plan [options]           Show changes required by the current configuration"
        + " (-out=FILE saves it)";
  }
}
