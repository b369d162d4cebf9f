package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.StateEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what the soak's other doors had committed, one line each, and turns it into upstream
 * sightings for the no-lost-events check:
 *
 * <ul>
 *   <li>{@code <at> trigger <tenant> <runId> <topic> <partition> <offset> <eventId>}: a chat-ops
 *       trigger the broker acknowledged at that offset; it must lead to the run its idempotency key
 *       names ({@link #TRIGGER_STREAM}, id = the run id)
 *   <li>{@code <at> push <tenant> <workspace> <serial> <lockId>}: a Terraform HTTP backend push the
 *       state service answered 200; it must be a write in that workspace's state history with that
 *       serial ({@link #PUSH_STREAM}, id = {@code tenant/workspace@serial})
 * </ul>
 *
 * Blank lines and {@code #} comments are skipped; any other line that does not parse is a problem
 * naming the file and line. {@link #downstream} finds, in the history read from the database, what
 * each committed one led to.
 */
public final class DoorLog {
  /** A committed trigger → the run its key made (a row of {@code planner.runs}). */
  public static final String TRIGGER_STREAM = "stagecraft.run-requests→planner.runs";

  /** An acknowledged backend push → a write in {@code state.state_events}. */
  public static final String PUSH_STREAM = "tf-backend push→state.state_events";

  private DoorLog() {}

  /** The committed events found and the lines that could not be used. */
  public record Reading(List<EventSighting> committed, List<String> problems) {
    public Reading {
      committed = List.copyOf(committed);
      problems = List.copyOf(problems);
    }
  }

  public static Reading read(Path file) throws IOException {
    return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  static Reading parse(String name, List<String> lines) {
    List<EventSighting> committed = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = name + ":" + (i + 1) + ": ";
      String[] p = line.split("\\s+", -1);
      Instant at;
      try {
        at = Instant.parse(p[0]);
      } catch (DateTimeParseException e) {
        problems.add(
            where + "\"" + p[0] + "\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)");
        continue;
      }
      String kind = p.length > 1 ? p[1] : "";
      if (kind.equals("trigger") && p.length == 8) {
        committed.add(new EventSighting(TRIGGER_STREAM, p[3], EventSighting.Side.UPSTREAM, at));
      } else if (kind.equals("push") && p.length == 6 && p[4].matches("\\d+")) {
        committed.add(
            new EventSighting(
                PUSH_STREAM,
                pushId(p[2], p[3], Long.parseLong(p[4])),
                EventSighting.Side.UPSTREAM,
                at));
      } else {
        problems.add(
            where
                + "expected \"<at> trigger <tenant> <runId> <topic> <partition> <offset> <eventId>\""
                + " or \"<at> push <tenant> <workspace> <serial> <lockId>\", found \""
                + line
                + "\"");
      }
    }
    return new Reading(committed, problems);
  }

  static String pushId(String tenant, String workspace, long serial) {
    return tenant + "/" + workspace + "@" + serial;
  }

  /**
   * The downstream sightings of the committed events: a trigger's run among the runs (at its
   * queueing), a push's write among the state entries (at its storing). What is not found gets no
   * sighting, which the no-lost-events check reports.
   */
  public static List<EventSighting> downstream(
      List<EventSighting> committed, List<RunRecord> runs, List<StateEntry> states) {
    Map<String, Instant> seen = new HashMap<>();
    for (RunRecord r : runs) {
      seen.putIfAbsent(TRIGGER_STREAM + " " + r.runId(), r.queuedAt());
    }
    for (StateEntry s : states) {
      if (s.kind() == StateEntry.Kind.WRITE) {
        seen.putIfAbsent(PUSH_STREAM + " " + pushId(s.tenant(), s.workspace(), s.serial()), s.at());
      }
    }
    List<EventSighting> found = new ArrayList<>();
    for (EventSighting up : committed) {
      Instant at = seen.get(up.stream() + " " + up.eventId());
      if (at != null) {
        found.add(new EventSighting(up.stream(), up.eventId(), EventSighting.Side.DOWNSTREAM, at));
      }
    }
    return found;
  }
}
