package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft plan}: shows what an apply would do. Changes nothing. With {@code
 * -detailed-exitcode}: 0 no changes, 2 changes, 1 error.
 */
public final class PlanCommand implements Command {
  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    RunOptions options = RunOptions.parse(ctx, args, false);
    Map<String, String> files = Configs.loadChecked(ctx, options, false);
    if (files == null) {
      return 1;
    }
    ApiClient api = Server.client(ctx);
    JsonNode result;
    try {
      result = api.post(api.api("plans"), Configs.body(options, files, false));
    } catch (ApiClient.ApiException e) {
      ctx.err().println("Error: " + e.getMessage());
      return 1;
    }
    if (options.json) {
      ctx.out().println(new ObjectMapper().writeValueAsString(result.get("plan")));
    } else {
      ctx.out().print(result.get("rendered").asText());
    }
    boolean changes = result.get("has_changes").asBoolean();
    return options.detailedExitCode && changes ? 2 : 0;
  }

  @Override
  public String synopsis() {
    return "plan [options]           Show changes required by the current configuration";
  }
}
