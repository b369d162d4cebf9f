package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.DevStackPointer;
import dev.stagecraft.devstack.StackFiles;
import dev.stagecraft.devstack.StackInfo;
import java.util.List;
import java.util.Optional;

/**
 * {@code stagecraft env [-data-dir=DIR]}: prints {@code export STAGECRAFT_ADDR=...} and {@code
 * export STAGECRAFT_TOKEN=...} for the running dev stack, for {@code eval "$(./stagecraft env)"}.
 */
public final class EnvCommand implements Command {

  @Override
  public int run(CliContext context, List<String> args) {
    StackOptions options = StackOptions.parse(context, args, false);
    String addr;
    String token;
    if (options.dataDir() != null) {
      DevStackLayout layout = new DevStackLayout(options.dataDir());
      Optional<StackInfo> info =
          StackFiles.readQuietly(layout.stackFile(), StackInfo.class)
              .filter(StackInfo::supervisorAlive);
      if (info.isEmpty()) {
        context.err().println("Error: no dev stack is running for " + layout.dataDir() + ".");
        return 1;
      }
      addr = info.get().planner();
      token = UpCommand.token(layout);
    } else {
      Optional<DevStackPointer> pointer = StackLocator.pointer(context);
      if (pointer.isEmpty() || pointer.get().planner() == null) {
        context.err().println("Error: " + StackLocator.NOT_FOUND);
        return 1;
      }
      addr = pointer.get().planner();
      token = pointer.get().token();
    }
    context.out().println("export STAGECRAFT_ADDR=" + addr);
    if (token != null) {
      context.out().println("export STAGECRAFT_TOKEN=" + token);
    } else {
      context.err().println("warning: the dev stack has no API token (see logs/devstack.log).");
    }
    return 0;
  }

  @Override
  public String synopsis() {
    return "env [-data-dir=DIR]            print export STAGECRAFT_ADDR=... / STAGECRAFT_TOKEN=...";
  }
}
