package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.history.StepKey;
import dev.stagecraft.chaos.history.StepReport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * No step silently runs twice (design §9):
 *
 * <ul>
 *   <li>a step has at most one execution (journal line with its token) unless every execution of it
 *       was marked retryable: else {@link ViolationKind#STEP_EXECUTED_TWICE};
 *   <li>a step that ran at all may have partly run, so some outcome must be reported for it
 *       (succeeded, failed, canceled, or interrupted when its executor vanished): else {@link
 *       ViolationKind#STEP_RUN_UNREPORTED};
 *   <li>a step reported {@code interrupted} in a creating action (create, replace) leaves its
 *       instance tainted: else {@link ViolationKind#INTERRUPTED_STEP_NOT_TAINTED}. A cut delete
 *       keeps the instance as it was (the state service's {@code StateDecider}: the next destroy
 *       runs its steps again, knowingly).
 * </ul>
 */
public final class StepsAtMostOnce implements Invariant {

  @Override
  public String name() {
    return "steps at most once";
  }

  @Override
  public List<Violation> check(History history) {
    Comparator<StepExecution> byTime =
        Comparator.comparing(StepExecution::at)
            .thenComparing(StepExecution::host)
            .thenComparing(StepExecution::token);
    Map<StepKey, List<StepExecution>> executions =
        history.stepExecutions().stream()
            .sorted(byTime)
            .collect(Collectors.groupingBy(StepExecution::step, TreeMap::new, Collectors.toList()));
    Map<StepKey, List<StepReport>> reports =
        history.stepReports().stream()
            .collect(Collectors.groupingBy(StepReport::step, TreeMap::new, Collectors.toList()));
    List<Violation> found = new ArrayList<>();
    executions.forEach(
        (step, runs) -> {
          boolean retryable = runs.stream().allMatch(StepExecution::retryable);
          if (runs.size() > 1 && !retryable) {
            found.add(
                new Violation(
                    ViolationKind.STEP_EXECUTED_TWICE,
                    "step "
                        + step
                        + " ran "
                        + runs.size()
                        + " times ("
                        + runs.stream()
                            .map(e -> e.host() + " at " + e.at())
                            .collect(Collectors.joining(", "))
                        + ") but is not marked retryable",
                    List.of(step.toString()),
                    List.copyOf(runs)));
          }
          if (!reports.containsKey(step)) {
            StepExecution first = runs.get(0);
            found.add(
                new Violation(
                    ViolationKind.STEP_RUN_UNREPORTED,
                    "step "
                        + step
                        + " ran on "
                        + first.host()
                        + " at "
                        + first.at()
                        + " (token "
                        + first.token()
                        + ") but no outcome was reported for it: a step that may have partly run"
                        + " must be reported interrupted",
                    List.of(step.toString()),
                    List.copyOf(runs)));
          }
        });
    reports.forEach(
        (step, said) -> {
          for (StepReport report : said) {
            if (StepReport.INTERRUPTED.equals(report.outcome())
                && report.creates()
                && !report.instanceTainted()) {
              List<Record> evidence = new ArrayList<>(executions.getOrDefault(step, List.of()));
              evidence.add(report);
              found.add(
                  new Violation(
                      ViolationKind.INTERRUPTED_STEP_NOT_TAINTED,
                      "step "
                          + step
                          + " of a "
                          + report.action()
                          + " was reported interrupted at "
                          + report.at()
                          + " but its instance is not tainted",
                      List.of(step.toString()),
                      evidence));
            }
          }
        });
    return found;
  }
}
