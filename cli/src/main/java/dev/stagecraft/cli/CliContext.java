package dev.stagecraft.cli;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command runs with: its working directory (after {@code -chdir}), the environment, and the
 * terminal streams. Commands never read {@code System.getenv} or {@code System.out} directly, so
 * tests can run them in-process.
 */
public record CliContext(
    Path workingDir, Map<String, String> env, PrintStream out, PrintStream err, BufferedReader in) {

  public String env(String name) {
    return env.get(name);
  }

  public CliContext withWorkingDir(Path dir) {
    return new CliContext(dir, env, out, err, in);
  }
}
