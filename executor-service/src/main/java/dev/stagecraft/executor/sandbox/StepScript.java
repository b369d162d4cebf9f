package dev.stagecraft.executor.sandbox;

import java.util.List;
import java.util.Map;

/**
 * The script that starts one step inside an action's sandbox: it changes to the step's directory
 * and replaces itself with {@code env -i}, which starts the command with exactly the given
 * environment. Every value is single-quoted, so the tenant's command, interpreter and environment
 * reach the command as data, never as script.
 */
final class StepScript {
  private StepScript() {}

  /**
   * @param argv the interpreter and the command; the first element must not contain '=' (env would
   *     take it for a variable)
   * @param environment the complete environment of the command
   * @param directory the absolute directory inside the sandbox to start in
   */
  static String of(List<String> argv, Map<String, String> environment, String directory) {
    StringBuilder s = new StringBuilder();
    s.append("cd ").append(quote(directory)).append(" || exit 126\n");
    s.append("exec /usr/bin/env -i --");
    environment.forEach((k, v) -> s.append(' ').append(quote(k + "=" + v)));
    for (String a : argv) {
      s.append(' ').append(quote(a));
    }
    return s.append('\n').toString();
  }

  /** {@code 'text'}, with each {@code '} written as {@code '\''}. */
  static String quote(String text) {
    return "'" + text.replace("'", "'\\''") + "'";
  }
}
