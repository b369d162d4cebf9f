package dev.stagecraft.chaos.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the workload knows about each journal token it put in a configuration: the step it belongs
 * to. A token is unique per step of a submitted run (the workload writes it into the step's command
 * and records it here once the run's id is known).
 */
public record TokenManifest(Map<String, Step> steps) {

  /**
   * @param stepId {@code <actionId>#<index>}
   * @param retryable true if the step is marked safe to run again
   */
  public record Step(String runId, String actionId, String stepId, boolean retryable) {}

  public TokenManifest {
    steps = Map.copyOf(steps);
  }

  public Optional<Step> step(String token) {
    return Optional.ofNullable(steps.get(token));
  }

  /**
   * Reads a manifest file: one token a line, {@code <token> <runId> <actionId> <stepId>
   * <retryable|once>}; blank lines and {@code #} comments skipped.
   *
   * @throws IllegalArgumentException naming {@code file:line} and what is wrong, at the first bad
   *     line (a manifest is the workload's own output: a bad one is a bug to fix, not data to skip)
   */
  public static TokenManifest read(Path file) throws IOException {
    return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  static TokenManifest parse(String name, List<String> lines) {
    Map<String, Step> steps = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = name + ":" + (i + 1) + ": ";
      String[] p = line.split("\\s+", -1);
      if (p.length != 5 || !(p[4].equals("retryable") || p[4].equals("once"))) {
        throw new IllegalArgumentException(
            where
                + "expected \"<token> <runId> <actionId> <stepId> <retryable|once>\", found \""
                + line
                + "\"");
      }
      Step previous = steps.put(p[0], new Step(p[1], p[2], p[3], p[4].equals("retryable")));
      if (previous != null) {
        throw new IllegalArgumentException(
            where + "token " + p[0] + " is listed twice: each step needs a token of its own");
      }
    }
    return new TokenManifest(steps);
  }
}
