package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.stack.StackLocator;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft cancel RUN_ID}: asks the planner to cancel a run (docs/adr/0007). A run that
 * has not applied anything ends {@code canceled} at once; one that is applying stops dispatching,
 * its running steps are stopped, and it ends {@code canceled} once they reported. Prints the run's
 * status as the planner answered; follow the run (or {@code GET /runs/ID}) to see it end.
 */
public final class CancelCommand implements Command {

  /**
   * How long a cancel is sent again while the server answers 503 with {@code Retry-After}: longer
   * than a dead planner instance's lease (15 s) and its adoption (ADR 0050).
   */
  static final Duration CANCEL_PATIENCE = Duration.ofSeconds(30);

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    if (args.size() != 1 || args.getFirst().startsWith("-")) {
      throw new UsageException("cancel needs exactly one run ID (e.g. stagecraft cancel run-1a2b)");
    }
    String runId = args.getFirst();
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    ApiClient api = new ApiClient(target.address().toString(), target.token());
    JsonNode run;
    try {
      run =
          api.postRetrying(
              api.api("runs") + "/" + URLEncoder.encode(runId, StandardCharsets.UTF_8) + "/cancel",
              Map.of(),
              CANCEL_PATIENCE,
              why -> ctx.err().println("Waiting: " + why));
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
    String status = run.path("status").asText();
    if (run.path("terminal").asBoolean()) {
      ctx.out().println("Run " + runId + " is " + status + ".");
    } else {
      ctx.out()
          .println(
              "Cancel requested: run "
                  + runId
                  + " stops dispatching; its running steps are being stopped.");
    }
    return 0;
  }

  @Override
  public String synopsis() {
    return "cancel RUN_ID             Cancel a run: stop dispatching, stop its running steps";
  }
}
