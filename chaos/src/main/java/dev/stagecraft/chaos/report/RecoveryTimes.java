package dev.stagecraft.chaos.report;

import dev.stagecraft.chaos.history.Fault;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.RunTransition;
import dev.stagecraft.chaos.invariant.RunsEnd;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * How long runs waited after a fault (issue 30: "recovery, measured from fault to the run's next
 * transition"). A run is <em>in flight</em> at a fault when it had entered a status before the
 * fault began and that status is not an end state; its wait is the time from the fault's beginning
 * to its first transition after it. Per fault kind: the faults, the runs in flight, the median,
 * 99th percentile (nearest rank) and longest wait, and how many of those runs ended {@code errored}
 * (what a user saw fail).
 */
public final class RecoveryTimes {
  private RecoveryTimes() {}

  /** One fault kind's numbers; waits are empty when no run was in flight at its faults. */
  public record Row(
      String kind, int faults, int runsInFlight, List<Duration> waits, int endedErrored) {
    public Row {
      waits = waits.stream().sorted().toList();
    }

    public Duration percentile(int p) {
      if (waits.isEmpty()) {
        return null;
      }
      int rank = (int) Math.ceil(p / 100.0 * waits.size());
      return waits.get(Math.max(0, rank - 1));
    }

    public Duration max() {
      return waits.isEmpty() ? null : waits.getLast();
    }
  }

  /** The rows, by kind name. */
  public static List<Row> measure(History history) {
    Map<String, List<RunTransition>> byRun =
        history.transitions().stream()
            .collect(
                Collectors.groupingBy(RunTransition::runId, HashMap::new, Collectors.toList()));
    byRun.values().forEach(l -> l.sort(Comparator.comparing(RunTransition::at)));
    Map<String, String> finalStatus = new HashMap<>();
    for (RunRecord r : history.runs()) {
      finalStatus.put(r.runId(), r.status());
    }
    Map<String, List<Fault>> faultsByKind =
        history.faults().stream()
            .collect(Collectors.groupingBy(Fault::kind, TreeMap::new, Collectors.toList()));
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, List<Fault>> kind : faultsByKind.entrySet()) {
      List<Duration> waits = new ArrayList<>();
      int inFlight = 0;
      int errored = 0;
      for (Fault f : kind.getValue()) {
        for (Map.Entry<String, List<RunTransition>> run : byRun.entrySet()) {
          RunTransition before = null;
          RunTransition after = null;
          for (RunTransition t : run.getValue()) {
            if (!t.at().isAfter(f.at())) {
              before = t;
            } else {
              after = t;
              break;
            }
          }
          if (before == null || RunsEnd.END_STATES.contains(before.status())) {
            continue;
          }
          inFlight++;
          if ("errored".equals(finalStatus.get(run.getKey()))) {
            errored++;
          }
          if (after != null) {
            waits.add(Duration.between(f.at(), after.at()));
          }
        }
      }
      rows.add(new Row(kind.getKey(), kind.getValue().size(), inFlight, waits, errored));
    }
    return rows;
  }

  /** The rows as a Markdown table's rows: kind, faults, runs in flight, p50, p99, max, errored. */
  static List<List<String>> cells(List<Row> rows) {
    return rows.stream()
        .map(
            r ->
                List.of(
                    r.kind(),
                    String.valueOf(r.faults()),
                    String.valueOf(r.runsInFlight()),
                    seconds(r.percentile(50)),
                    seconds(r.percentile(99)),
                    seconds(r.max()),
                    String.valueOf(r.endedErrored())))
        .toList();
  }

  private static String seconds(Duration d) {
    return d == null ? "–" : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
