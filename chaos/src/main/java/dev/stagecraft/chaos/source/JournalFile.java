package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.StepExecution;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a step journal: a text file on one host to which every step appends one line when it runs,
 * {@code <ISO-8601 instant> <token>} (e.g. {@code 2026-12-05T10:00:02.123Z tok-42}; as {@code echo
 * "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) tok-42" >> journal} writes it). Blank lines are skipped; a
 * last line without its newline (the step was killed while writing) still counts if it is whole. A
 * line that does not parse, or a token the manifest does not know, is a problem naming the file and
 * line — the journal is evidence, so nothing is guessed.
 */
public final class JournalFile {
  private JournalFile() {}

  /** The executions found and the lines that could not be used. */
  public record Reading(List<StepExecution> executions, List<String> problems) {
    public Reading {
      executions = List.copyOf(executions);
      problems = List.copyOf(problems);
    }
  }

  /** Reads {@code file}, written on {@code host}. */
  public static Reading read(Path file, String host, TokenManifest manifest) throws IOException {
    return parse(file.toString(), host, Files.readAllLines(file, StandardCharsets.UTF_8), manifest);
  }

  static Reading parse(String name, String host, List<String> lines, TokenManifest manifest) {
    List<StepExecution> executions = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      String where = name + ":" + (i + 1) + ": ";
      String[] parts = line.split("\\s+", -1);
      if (parts.length != 2) {
        problems.add(where + "expected \"<instant> <token>\", found \"" + line + "\"");
        continue;
      }
      Instant at;
      try {
        at = Instant.parse(parts[0]);
      } catch (DateTimeParseException e) {
        problems.add(
            where + "\"" + parts[0] + "\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)");
        continue;
      }
      String token = parts[1];
      manifest
          .step(token)
          .ifPresentOrElse(
              s ->
                  executions.add(
                      new StepExecution(
                          host, token, s.runId(), s.actionId(), s.stepId(), s.retryable(), at)),
              () ->
                  problems.add(
                      where + "token " + token + " is in no manifest entry: which step ran it?"));
    }
    return new Reading(executions, problems);
  }
}
