package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.SshConnection;
import java.security.SecureRandom;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Where a {@code remote-exec} script is uploaded: the connection's {@code scriptPath} (Terraform's
 * {@code script_path}) with every {@code %RAND%} replaced by a random number, as Terraform does
 * (its default is {@code /tmp/terraform_%RAND%.sh}); without one, the executor's default. Each
 * script gets its own draw. Thread-safe.
 */
final class ScriptPaths {
  static final String RAND = "%RAND%";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9/._+,:@%=-]+");

  private ScriptPaths() {}

  /** The path for the next script of a step on {@code connection}. */
  static String of(SshConnection connection, Supplier<String> defaults) {
    String template = connection == null ? null : connection.scriptPath();
    if (template == null || template.isBlank()) {
      return defaults.get();
    }
    StringBuilder path = new StringBuilder();
    int from = 0;
    for (int at = template.indexOf(RAND); at >= 0; at = template.indexOf(RAND, from)) {
      path.append(template, from, at).append(RANDOM.nextInt(Integer.MAX_VALUE));
      from = at + RAND.length();
    }
    return path.append(template.substring(from)).toString();
  }

  /** The path as a shell command word: as it is when safe, else single-quoted. */
  static String asCommand(String path) {
    if (SHELL_SAFE.matcher(path).matches()) {
      return path;
    }
    return "'" + path.replace("'", "'\\''") + "'";
  }
}
