package dev.stagecraft.executor.step;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code local-exec} commands as the executor itself, in its working directory, with its
 * environment plus the provisioner's: no isolation at all. Only for an installation whose operator
 * opted out of the sandbox on purpose ({@code STAGECRAFT_EXECUTOR_SANDBOX=off}: one trusted
 * tenant), and for tests of the step logic. The commands can read everything the executor can, its
 * credentials included.
 *
 * <p>A command and everything it starts die with the executor, even one killed with SIGKILL: each
 * command runs under a small watch shell ({@link #WATCH}) in a session and process group of its own
 * ({@code setsid}); the shell gets {@code SIGTERM} when the executor dies ({@code setpriv
 * --pdeathsig}, armed from {@link ProcessLauncher}'s thread) and on a timeout or cancel, and then
 * kills its whole process group. A command that leaves the group on purpose ({@code setsid},
 * daemons) escapes this; only the sandbox contains everything. Without {@code setsid} and {@code
 * setpriv} (util-linux) the command runs bare, logged once as a warning.
 */
public final class UnsandboxedCommands implements LocalCommands {
  private static final Logger LOG = LoggerFactory.getLogger(UnsandboxedCommands.class);
  private static final Path SETSID = Path.of("/usr/bin/setsid");
  private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

  /**
   * The watch shell: {@code $1} is the executor's pid (if the executor died before the signal was
   * armed, the shell's parent is another process already), the rest the command. Fixed text.
   */
  static final String WATCH =
      "trap 'kill -KILL 0' TERM; [ \"$PPID\" = \"$1\" ] || kill -KILL 0; shift;"
          + " \"$@\" & wait $!";

  private static volatile boolean warned;

  private final Path workingDirectory;

  /**
   * @param workingDirectory relative {@code working_dir} values are resolved against it, and
   *     commands without one run in it
   */
  public UnsandboxedCommands(Path workingDirectory) {
    this.workingDirectory = workingDirectory.toAbsolutePath();
  }

  @Override
  public Session open(ActionIdentity action) {
    return new Session() {
      @Override
      public Process start(List<String> argv, Map<String, String> environment, String workingDir)
          throws IOException {
        Path dir =
            workingDir == null || workingDir.isBlank()
                ? workingDirectory
                : workingDirectory.resolve(workingDir).normalize();
        if (!Files.isDirectory(dir)) {
          throw new InvalidStep("working_dir " + dir + " is not a directory");
        }
        ProcessBuilder builder =
            new ProcessBuilder(watched(argv))
                .directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(environment);
        return ProcessLauncher.start(builder);
      }

      @Override
      public Optional<String> exceededLimit() {
        return Optional.empty();
      }

      @Override
      public void close() {}
    };
  }

  /** The command under the watch shell, or bare when util-linux's tools are missing. */
  static List<String> watched(List<String> argv) {
    if (!Files.isExecutable(SETSID) || !Files.isExecutable(SETPRIV)) {
      if (!warned) {
        warned = true;
        LOG.warn(
            "{} or {} is missing (install util-linux): unsandboxed local-exec commands will not"
                + " die with the executor",
            SETSID,
            SETPRIV);
      }
      return argv;
    }
    List<String> all = new ArrayList<>();
    all.addAll(List.of(SETPRIV.toString(), "--pdeathsig", "TERM", "--", SETSID.toString()));
    all.addAll(List.of("/bin/sh", "-c", WATCH, "stagecraft-watch"));
    all.add(Long.toString(ProcessHandle.current().pid()));
    all.addAll(argv);
    return all;
  }
}
