package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft apply} and {@code stagecraft destroy}: plan, ask for approval (unless {@code
 * -auto-approve}), then run on the server and follow it live. An approved plan is applied only if
 * the state did not move since it was shown. On a workspace without auto-apply the run waits for
 * approval on the server too: the CLI gives it, for exactly the plan the user approved (or, with
 * {@code -auto-approve}, for the plan the run made), as Terraform's remote backend confirms a run.
 */
public final class ApplyCommand implements Command {
  private final boolean destroy;

  public ApplyCommand(boolean destroy) {
    this.destroy = destroy;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    RunOptions options = RunOptions.parse(ctx, args, true);
    if (!options.positional.isEmpty()) {
      return applySaved(ctx, options);
    }
    Configs.Checked config = Configs.loadChecked(ctx, options, destroy);
    if (config == null) {
      return 1;
    }
    ApiClient api = Server.client(ctx);
    Map<String, Object> body = Configs.body(options, config, destroy);
    try {
      RunApproval approval = RunApproval.ANY;
      if (!options.autoApprove) {
        JsonNode plan = api.post(api.api("plans"), body);
        ctx.out().print(plan.get("rendered").asText());
        if (!plan.get("has_changes").asBoolean()) {
          return 0;
        }
        ctx.out().println();
        ctx.out().println("Do you want to perform these actions?");
        ctx.out().println("  Only 'yes' will be accepted to approve.");
        ctx.out().println();
        ctx.out().print("  Enter a value: ");
        ctx.out().flush();
        String answer = ctx.in() == null ? null : ctx.in().readLine();
        if (answer == null || !answer.strip().equals("yes")) {
          ctx.err().println();
          ctx.err().println("Error: " + (destroy ? "Destroy" : "Apply") + " cancelled.");
          return 1;
        }
        body.put("expectedSerial", plan.get("prior_serial").asLong());
        approval = RunApproval.of(plan.get("digest").asText());
      }
      JsonNode run = api.post(api.api("runs"), body);
      return new RunFollower(ctx, api, options.autoApprove, approval)
          .follow(run.get("id").asText());
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  /**
   * {@code apply FILE}: applies exactly the saved plan, without asking (it was approved by saving
   * it); refused when the state moved or the plan would differ now, saying which changes differ
   * ({@link SavedPlanCheck}).
   */
  private int applySaved(CliContext ctx, RunOptions options) throws Exception {
    if (destroy || options.positional.size() != 1) {
      throw new UsageException(
          destroy ? "destroy takes no plan file" : "apply takes at most one plan file");
    }
    if (!options.variables.isEmpty() || !options.replace.isEmpty()) {
      throw new UsageException(
          "a saved plan already holds its variables and -replace options; apply it without them");
    }
    Path file = ctx.workingDir().resolve(options.positional.get(0));
    Map<String, Object> body = SavedPlan.readRunRequest(file, ctx);
    ApiClient api = Server.client(ctx);
    try {
      // planned again first (changes nothing): a plan that differs is refused here, saying what
      // differs, before a run is started
      Map<String, Object> planBody = new LinkedHashMap<>(body);
      planBody.remove("expectedSerial");
      planBody.remove("expectedDigest");
      String refusal =
          SavedPlanCheck.refusal(
              options.positional.get(0),
              SavedPlan.readFile(file),
              api.post(api.api("plans"), planBody));
      if (refusal != null) {
        ctx.err().println(ErrorLine.of(refusal));
        return 1;
      }
      JsonNode run = api.post(api.api("runs"), body);
      return new RunFollower(ctx, api, true, RunApproval.of((String) body.get("expectedDigest")))
          .follow(run.get("id").asText());
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  @Override
  public String synopsis() {
    return destroy
        ? "destroy [options]        Destroy everything the workspace's state holds"
        : "apply [options] [FILE]   Create or update infrastructure (FILE: a saved plan)";
  }
}
