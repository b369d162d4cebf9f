package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.devstack.DevCredentials;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.StackFiles;
import dev.stagecraft.devstack.StackInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code stagecraft up [-detach] [-data-dir=DIR]}: starts the dev stack (Kafka, PostgreSQL and the
 * four services) — in the foreground until Ctrl-C, or in the background with {@code -detach}.
 */
public final class UpCommand implements Command {

  @Override
  public int run(CliContext context, List<String> args) throws Exception {
    StackOptions options = StackOptions.parse(context, args, true);
    Path dataDir = options.dataDirOrDefault(context);
    DevStackLayout layout = new DevStackLayout(dataDir);
    Optional<StackInfo> running =
        StackFiles.readQuietly(layout.stackFile(), StackInfo.class)
            .filter(StackInfo::supervisorAlive);
    if (running.isPresent()) {
      context.out().println("A dev stack is already running (pid " + running.get().pid() + ").");
      context.out().print(running.get().summary(token(layout)));
      return options.detach() ? 0 : 1;
    }
    DevStackLauncher launcher = new DevStackLauncher(context);
    if (!options.detach()) {
      return launcher.runForeground(dataDir);
    }
    context.err().println("Starting the dev stack in the background (" + dataDir + ") ...");
    StackInfo info = launcher.startDetached(dataDir);
    context.out().print(info.summary(token(layout)));
    context.out().println();
    context.out().println("Stop it with: ./stagecraft down");
    return 0;
  }

  static String token(DevStackLayout layout) {
    return StackFiles.readQuietly(layout.credentialsFile(), DevCredentials.class)
        .map(DevCredentials::token)
        .orElse(null);
  }

  @Override
  public String synopsis() {
    return "up [-detach] [-data-dir=DIR]   start the dev stack (Kafka, PostgreSQL, services)";
  }
}
