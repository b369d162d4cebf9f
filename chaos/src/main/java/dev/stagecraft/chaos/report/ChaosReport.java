package dev.stagecraft.chaos.report;

import dev.stagecraft.chaos.history.Fault;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.invariant.Violation;
import dev.stagecraft.chaos.invariant.ViolationKind;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checker's answer as Markdown: a summary table (runs, steps, faults, violations), runs by
 * status, faults by kind, violations by kind (every kind, zeros included, so a clean report shows
 * what was checked), then each violation with its evidence. Deterministic: the same history and
 * violations give the same text, byte for byte.
 */
public final class ChaosReport {
  private ChaosReport() {}

  /**
   * @param title the report's heading, e.g. {@code Chaos soak — seed 42, 30 minutes}
   * @param violations as the checker returned them (sorted again here)
   */
  public static String markdown(String title, History history, List<Violation> violations) {
    return markdown(title, history, violations, List.of());
  }

  /**
   * With the lines the sources could not use (a journal line that does not parse, an audit row
   * without its grant...), listed after the violations in the given order: a history built from
   * incomplete sources proves less, and the report says so.
   */
  public static String markdown(
      String title, History history, List<Violation> violations, List<String> sourceProblems) {
    List<Violation> sorted = violations.stream().sorted(Violation.ORDER).toList();
    StringBuilder out = new StringBuilder();
    out.append("# ").append(title).append("\n\n");
    summary(out, history, sorted, sourceProblems);
    countsSections(out, history);
    recovery(out, history);
    violationsByKind(out, sorted);
    violations(out, sorted);
    if (!sourceProblems.isEmpty()) {
      out.append("\n## Source problems\n\n");
      sourceProblems.forEach(p -> out.append("- ").append(p).append('\n'));
    }
    return out.toString();
  }

  private static void summary(
      StringBuilder out, History history, List<Violation> sorted, List<String> sourceProblems) {
    long steps = history.stepExecutions().stream().map(StepExecution::step).distinct().count();
    table(
        out,
        List.of("what", "count"),
        List.of(
            List.of("runs", String.valueOf(history.runs().size())),
            List.of("steps (distinct)", String.valueOf(steps)),
            List.of("step executions", String.valueOf(history.stepExecutions().size())),
            List.of("faults", String.valueOf(history.faults().size())),
            List.of("violations", String.valueOf(sorted.size())),
            List.of("source problems", String.valueOf(sourceProblems.size()))));
  }

  /** Runs by status, then faults by kind. */
  private static void countsSections(StringBuilder out, History history) {
    out.append("\n## Runs by status\n\n");
    Map<String, Long> byStatus =
        history.runs().stream()
            .collect(Collectors.groupingBy(RunRecord::status, TreeMap::new, Collectors.counting()));
    table(out, List.of("status", "runs"), rows(byStatus));

    out.append("\n## Faults by kind\n\n");
    Map<String, Long> faults =
        history.faults().stream()
            .collect(Collectors.groupingBy(Fault::kind, TreeMap::new, Collectors.counting()));
    table(out, List.of("kind", "faults"), rows(faults));
  }

  private static void recovery(StringBuilder out, History history) {
    out.append("\n## Recovery after faults\n\n");
    out.append(
        "Runs in flight at a fault (in a status that is not an end state when it began): the time"
            + " from the fault's beginning to each one's next transition, and how many of them"
            + " ended `errored`.\n\n");
    table(
        out,
        List.of("kind", "faults", "runs in flight", "p50", "p99", "max", "ended errored"),
        RecoveryTimes.cells(RecoveryTimes.measure(history)));
  }

  /** Every kind, zeros included, so that a clean report shows what was checked. */
  private static void violationsByKind(StringBuilder out, List<Violation> sorted) {
    out.append("\n## Violations by kind\n\n");
    Map<ViolationKind, Long> byKind = new EnumMap<>(ViolationKind.class);
    for (ViolationKind kind : ViolationKind.values()) {
      byKind.put(kind, 0L);
    }
    sorted.forEach(v -> byKind.merge(v.kind(), 1L, Long::sum));
    table(
        out,
        List.of("invariant", "kind", "violations", "meaning"),
        byKind.entrySet().stream()
            .map(
                e ->
                    List.of(
                        e.getKey().invariant(),
                        e.getKey().label(),
                        String.valueOf(e.getValue()),
                        e.getKey().meaning()))
            .toList());
  }

  /** Each violation, numbered, with its ids and evidence. */
  private static void violations(StringBuilder out, List<Violation> sorted) {
    out.append("\n## Violations\n");
    if (sorted.isEmpty()) {
      out.append("\nNone.\n");
    }
    int n = 0;
    for (Violation v : sorted) {
      n++;
      out.append("\n### ")
          .append(n)
          .append(". ")
          .append(v.kind().label())
          .append("\n\n")
          .append(v.what())
          .append("\n\n");
      out.append("Ids: ")
          .append(v.ids().stream().map(id -> "`" + id + "`").collect(Collectors.joining(", ")))
          .append("\n\nEvidence:\n\n");
      for (Record r : v.evidence()) {
        out.append("- `").append(r).append("`\n");
      }
    }
  }

  private static List<List<String>> rows(Map<String, Long> counts) {
    if (counts.isEmpty()) {
      return List.of(List.of("(none)", "0"));
    }
    return counts.entrySet().stream()
        .map(e -> List.of(e.getKey(), String.valueOf(e.getValue())))
        .toList();
  }

  private static void table(StringBuilder out, List<String> header, List<List<String>> rows) {
    out.append(line(header));
    out.append(line(header.stream().map(h -> "---").toList()));
    rows.forEach(r -> out.append(line(r)));
  }

  private static String line(List<String> cells) {
    return "| "
        + cells.stream().map(c -> c.replace("|", "\\|")).collect(Collectors.joining(" | "))
        + " |\n";
  }
}
