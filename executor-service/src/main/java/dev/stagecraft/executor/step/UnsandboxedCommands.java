package dev.stagecraft.executor.step;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs {@code local-exec} commands as the executor itself, in its working directory, with its
 * environment plus the provisioner's: no isolation at all. Only for an installation whose operator
 * opted out of the sandbox on purpose ({@code STAGECRAFT_EXECUTOR_SANDBOX=off}: one trusted
 * tenant), and for tests of the step logic. The commands can read everything the executor can, its
 * credentials included.
 */
public final class UnsandboxedCommands implements LocalCommands {
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
            new ProcessBuilder(argv)
                .directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(environment);
        return builder.start();
      }

      @Override
      public Optional<String> exceededLimit() {
        return Optional.empty();
      }

      @Override
      public void close() {}
    };
  }
}
