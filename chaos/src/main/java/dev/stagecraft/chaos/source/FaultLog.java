package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.Fault;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the fault log a soak harness writes, one fault a line: {@code <at> <kind> <target>
 * [<clearedAt>]} (ISO-8601 instants; {@code clearedAt} absent for an instantaneous fault, e.g.
 * {@code 2026-12-05T10:00:05Z kill executor-2 2026-12-05T10:00:07Z} for a kill and its restart).
 * Blank lines and lines starting with {@code #} are skipped; any other line that does not parse is
 * a problem naming the file and line.
 */
public final class FaultLog {
  private FaultLog() {}

  /** The faults read and the lines that could not be used. */
  public record Reading(List<Fault> faults, List<String> problems) {
    public Reading {
      faults = List.copyOf(faults);
      problems = List.copyOf(problems);
    }
  }

  public static Reading read(Path file) throws IOException {
    return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  static Reading parse(String name, List<String> lines) {
    List<Fault> faults = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = name + ":" + (i + 1) + ": ";
      String[] parts = line.split("\\s+", -1);
      if (parts.length < 3 || parts.length > 4) {
        problems.add(
            where + "expected \"<at> <kind> <target> [<clearedAt>]\", found \"" + line + "\"");
        continue;
      }
      try {
        Instant at = Instant.parse(parts[0]);
        Instant cleared = parts.length == 4 ? Instant.parse(parts[3]) : null;
        if (cleared != null && cleared.isBefore(at)) {
          problems.add(where + "the fault is cleared at " + cleared + ", before it began at " + at);
          continue;
        }
        faults.add(new Fault(parts[1], parts[2], at, cleared));
      } catch (DateTimeParseException e) {
        problems.add(
            where
                + "\""
                + e.getParsedString()
                + "\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)");
      }
    }
    return new Reading(faults, problems);
  }
}
