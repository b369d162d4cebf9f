package dev.stagecraft.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft [-chdir=DIR] <command> [options]}. Global options come before the command, as
 * in Terraform. Exit codes: 0 success, 1 error ({@code plan -detailed-exitcode}: 2 when changes are
 * present).
 */
public final class StagecraftCli {
  private final Map<String, Command> commands = new LinkedHashMap<>();

  public StagecraftCli() {
    Commands.registerAll(commands);
  }

  public static void main(String[] args) {
    CliContext context =
        new CliContext(
            Path.of("").toAbsolutePath(),
            System.getenv(),
            new PrintStream(System.out, true, StandardCharsets.UTF_8),
            new PrintStream(System.err, true, StandardCharsets.UTF_8),
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    System.exit(new StagecraftCli().run(args, context));
  }

  /** Runs one invocation and returns its exit code. */
  public int run(String[] argv, CliContext context) {
    List<String> args = new ArrayList<>(List.of(argv));
    CliContext ctx = context;
    while (!args.isEmpty() && args.get(0).startsWith("-")) {
      String flag = args.remove(0);
      if (flag.startsWith("-chdir=")) {
        Path dir = ctx.workingDir().resolve(flag.substring("-chdir=".length())).normalize();
        if (!Files.isDirectory(dir)) {
          ctx.err().println("Error: -chdir: " + dir + " is not a directory.");
          return 1;
        }
        ctx = ctx.withWorkingDir(dir);
      } else if (flag.equals("-help") || flag.equals("-h") || flag.equals("--help")) {
        usage(ctx.out());
        return 0;
      } else if (flag.equals("-version") || flag.equals("--version")) {
        ctx.out().println("Stagecraft v" + version());
        return 0;
      } else {
        ctx.err().println("Error: unknown global option " + flag + " (see stagecraft -help).");
        return 1;
      }
    }
    if (args.isEmpty()) {
      usage(ctx.err());
      return 1;
    }
    String name = args.remove(0);
    String group = name + " ";
    if (!args.isEmpty() && commands.keySet().stream().anyMatch(k -> k.startsWith(group))) {
      name = group + args.remove(0); // a command of a group: state list, runs logs, ...
    }
    Command command = commands.get(name);
    if (command == null) {
      ctx.err().println("Error: unknown command \"" + name + "\".");
      usage(ctx.err());
      return 1;
    }
    try {
      return command.run(ctx, args);
    } catch (UsageException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      ctx.err().println("Usage: stagecraft " + command.synopsis());
      return 1;
    } catch (Exception e) {
      ctx.err().println("Error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return 1;
    }
  }

  private void usage(PrintStream out) {
    out.println("Usage: stagecraft [-chdir=DIR] <command> [options]");
    out.println();
    out.println("Commands:");
    commands.values().forEach(c -> out.println("  " + c.synopsis()));
  }

  static String version() {
    String v = StagecraftCli.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-dev" : v;
  }
}
