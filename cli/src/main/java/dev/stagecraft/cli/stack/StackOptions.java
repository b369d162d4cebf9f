package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import java.nio.file.Path;
import java.util.List;

/** The options of {@code up} and {@code down}: {@code -detach}, {@code -data-dir=DIR}. */
record StackOptions(boolean detach, Path dataDir) {

  /**
   * Accepts {@code -data-dir=DIR}, {@code -data-dir DIR} and the {@code --} spellings.
   *
   * @param allowDetach whether {@code -detach} is an option of this command
   */
  static StackOptions parse(CliContext context, List<String> args, boolean allowDetach) {
    boolean detach = false;
    Path dataDir = null;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name = arg.startsWith("--") ? arg.substring(1) : arg;
      int eq = name.indexOf('=');
      String value = eq > 0 ? name.substring(eq + 1) : null;
      name = eq > 0 ? name.substring(0, eq) : name;
      if (allowDetach && name.equals("-detach") && value == null) {
        detach = true;
      } else if (name.equals("-data-dir")) {
        if (value == null) {
          if (i + 1 >= args.size()) {
            throw new UsageException("-data-dir needs a directory");
          }
          value = args.get(++i);
        }
        dataDir = context.workingDir().resolve(value).toAbsolutePath().normalize();
      } else {
        throw new UsageException("unknown option " + arg);
      }
    }
    return new StackOptions(detach, dataDir);
  }

  /** The data directory given, or {@code .stagecraft} in the working directory. */
  Path dataDirOrDefault(CliContext context) {
    return dataDir != null ? dataDir : context.workingDir().resolve(".stagecraft");
  }
}
