package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.DataAccess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the log of the reads a soak's workload made with its tenants' tokens, one read a line:
 * {@code <at> <readerTenant> <ownerTenant> <resource>} (e.g. {@code 2026-12-05T10:00:05Z soak-1
 * soak-1 GET /api/v1/runs/run-17}: the resource is the rest of the line). The owner is the tenant
 * the returned data says it belongs to. Blank lines and {@code #} comments are skipped; any other
 * line that does not parse is a problem naming the file and line.
 */
public final class ReadLog {
  private ReadLog() {}

  /** The reads found and the lines that could not be used. */
  public record Reading(List<DataAccess> accesses, List<String> problems) {
    public Reading {
      accesses = List.copyOf(accesses);
      problems = List.copyOf(problems);
    }
  }

  public static Reading read(Path file) throws IOException {
    return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  static Reading parse(String name, List<String> lines) {
    List<DataAccess> accesses = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = name + ":" + (i + 1) + ": ";
      String[] parts = line.split("\\s+", 4);
      if (parts.length != 4) {
        problems.add(
            where
                + "expected \"<at> <readerTenant> <ownerTenant> <resource>\", found \""
                + line
                + "\"");
        continue;
      }
      try {
        accesses.add(new DataAccess(parts[1], parts[2], parts[3], Instant.parse(parts[0])));
      } catch (DateTimeParseException e) {
        problems.add(
            where + "\"" + parts[0] + "\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)");
      }
    }
    return new Reading(accesses, problems);
  }
}
