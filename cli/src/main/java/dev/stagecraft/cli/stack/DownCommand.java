package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.DevStackPointer;
import dev.stagecraft.devstack.StackFiles;
import dev.stagecraft.devstack.StackInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code stagecraft down [-data-dir=DIR]}: stops the dev stack by sending SIGTERM to its
 * supervisor, which stops the services, then Kafka, then PostgreSQL. The data stays.
 */
public final class DownCommand implements Command {
  private static final long STOP_TIMEOUT_SECONDS = 120;

  @Override
  public int run(CliContext context, List<String> args) throws Exception {
    StackOptions options = StackOptions.parse(context, args, false);
    Path dataDir = dataDir(context, options);
    Optional<StackInfo> info =
        StackFiles.readQuietly(new DevStackLayout(dataDir).stackFile(), StackInfo.class);
    Optional<ProcessHandle> supervisor = info.flatMap(StackInfo::supervisor);
    if (supervisor.isEmpty()) {
      context.out().println("No dev stack is running (data directory " + dataDir + ").");
      return 0;
    }
    context.err().println("Stopping the dev stack (pid " + supervisor.get().pid() + ") ...");
    supervisor.get().destroy();
    try {
      supervisor.get().onExit().get(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      context
          .err()
          .println(
              "Error: the dev stack (pid "
                  + supervisor.get().pid()
                  + ") did not stop within "
                  + STOP_TIMEOUT_SECONDS
                  + " s; see "
                  + new DevStackLayout(dataDir).logsDir());
      return 1;
    }
    context.out().println("Dev stack stopped.");
    return 0;
  }

  /** {@code -data-dir}, else the running stack's (pointer), else {@code .stagecraft} here. */
  static Path dataDir(CliContext context, StackOptions options) {
    if (options.dataDir() != null) {
      return options.dataDir();
    }
    return StackLocator.pointer(context)
        .map(DevStackPointer::dataDir)
        .filter(d -> d != null)
        .map(Path::of)
        .orElseGet(() -> options.dataDirOrDefault(context));
  }

  @Override
  public String synopsis() {
    return "down [-data-dir=DIR]           stop the dev stack (its data is kept)";
  }
}
