package dev.stagecraft.cli.state;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.run.ApiClient;
import dev.stagecraft.cli.stack.StackLocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft force-unlock LOCK_ID -reason=TEXT}: releases the workspace lock held as {@code
 * LOCK_ID} (a Terraform LockInfo ID, or a run's lock id as {@code 423} answers show it) whoever
 * holds it. The lock ID and a reason are required; the server records both, with who, in the
 * workspace history and publishes {@code dev.stagecraft.lock.force-unlocked}. Unlike Terraform it
 * does not ask for confirmation: the lock ID must match the current holder's, so a stale ID can
 * never release a newer lock.
 */
public final class ForceUnlockCommand implements Command {

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    String reason = null;
    List<String> rest = new ArrayList<>();
    for (String a : args) {
      if (a.startsWith("-reason=")) {
        reason = a.substring("-reason=".length());
      } else if (a.equals("-force")) {
        continue; // Terraform's flag to skip confirmation; there is no prompt here
      } else {
        rest.add(a);
      }
    }
    WorkspaceArgs parsed = WorkspaceArgs.parse(rest);
    if (parsed.positional().size() != 1) {
      throw new UsageException("force-unlock needs exactly one lock ID");
    }
    if (reason == null || reason.isBlank()) {
      throw new UsageException("force-unlock needs -reason=TEXT: say why the lock is forced open");
    }
    String lockId = parsed.positional().get(0);
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    ApiClient api = new ApiClient(target.address().toString(), target.token());
    try {
      api.post(
          api.api("state")
              + "/workspaces/"
              + StateVersionsCommand.encode(parsed.workspace())
              + "/lock/"
              + StateVersionsCommand.encode(lockId)
              + "/force-unlock",
          Map.of("reason", reason));
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
    ctx.out().println("Stagecraft state has been successfully unlocked!");
    ctx.out().println();
    ctx.out()
        .println(
            "The state has been unlocked, and Stagecraft commands should now be able to obtain a"
                + " new lock on the workspace. The force-unlock is recorded in its history.");
    return 0;
  }

  @Override
  public String synopsis() {
    return "force-unlock LOCK_ID -reason=TEXT  Release a stuck workspace lock (audited)";
  }
}
