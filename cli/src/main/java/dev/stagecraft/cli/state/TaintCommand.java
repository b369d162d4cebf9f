package dev.stagecraft.cli.state;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.run.ApiClient;
import dev.stagecraft.cli.stack.StackLocator;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft taint ADDR} / {@code untaint ADDR}: marks an instance in the workspace's state
 * as tainted, so the next plan replaces it, or clears the mark — as Terraform's commands do. The
 * server makes the change under the workspace lock; while a run holds it, the command waits.
 */
public final class TaintCommand implements Command {
  /** How long the server may wait for the workspace lock before the CLI stops waiting. */
  static final Duration LOCK_WAIT = Duration.ofMinutes(30);

  private final boolean taint;

  /**
   * @param taint true for {@code taint}, false for {@code untaint}
   */
  public TaintCommand(boolean taint) {
    this.taint = taint;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    WorkspaceArgs parsed = WorkspaceArgs.parse(args);
    String workspace = parsed.workspace();
    List<String> positional = parsed.positional();
    if (positional.size() != 1) {
      throw new UsageException(
          (taint ? "taint" : "untaint") + " needs exactly one resource instance address");
    }
    String address = positional.get(0);
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    ApiClient api = new ApiClient(target.address().toString(), target.token());
    try {
      api.post(
          api.api("workspaces")
              + "/"
              + URLEncoder.encode(workspace, StandardCharsets.UTF_8).replace("+", "%20")
              + (taint ? "/taint" : "/untaint"),
          Map.of("address", address),
          LOCK_WAIT);
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
    ctx.out()
        .println(
            taint
                ? "Resource instance " + address + " has been marked as tainted."
                : "Resource instance " + address + " has been successfully untainted.");
    return 0;
  }

  @Override
  public String synopsis() {
    return taint
        ? "taint ADDR               Mark an instance as tainted: the next apply replaces it"
        : "untaint ADDR             Remove the tainted mark from an instance";
  }
}
