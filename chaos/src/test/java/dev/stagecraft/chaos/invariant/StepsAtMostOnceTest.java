package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.history.StepReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class StepsAtMostOnceTest {
  private final StepsAtMostOnce check = new StepsAtMostOnce();

  @Test
  void stepsRunOnceAndReportedAreFine() {
    History h =
        history(100)
            .execution(ran("r-1", "a#0", "executor-1", 2))
            .report(reported("r-1", "a#0", "create", "succeeded", false, 3))
            .execution(ran("r-1", "b#0", "executor-2", 4))
            .report(reported("r-1", "b#0", "create", "interrupted", true, 30))
            // a retryable step may run again after its executor died
            .execution(ranRetryable("r-2", "c#0", "executor-1", 5))
            .execution(ranRetryable("r-2", "c#0", "executor-3", 40))
            .report(reported("r-2", "c#0", "create", "succeeded", false, 41))
            // an interrupted delete keeps its instance as it was
            .execution(ran("r-3", "d#1", "ssh-1", 6))
            .report(reported("r-3", "d#1", "delete", "interrupted", false, 30))
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void reportsAStepThatRanTwiceWithoutBeingRetryable() {
    StepExecution first = ran("r-1", "a#0", "executor-1", 2);
    StepExecution second = ran("r-1", "a#0", "executor-2", 31);
    History h =
        history(100)
            .execution(second)
            .execution(first)
            .report(reported("r-1", "a#0", "create", "succeeded", false, 32))
            .build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.STEP_EXECUTED_TWICE,
                "step r-1/a#0 ran 2 times (executor-1 at 2026-12-05T10:00:02Z, executor-2 at"
                    + " 2026-12-05T10:00:31Z) but is not marked retryable",
                List.of("r-1/a#0"),
                List.of(first, second)));
  }

  @Test
  void reportsAStepThatRanButWasNeverReported() {
    StepExecution ran = ran("r-1", "a#0", "executor-1", 2);
    History h = history(100).execution(ran).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.STEP_RUN_UNREPORTED,
                "step r-1/a#0 ran on executor-1 at 2026-12-05T10:00:02Z (token tok-r-1-a#0) but no"
                    + " outcome was reported for it: a step that may have partly run must be"
                    + " reported interrupted",
                List.of("r-1/a#0"),
                List.of(ran)));
  }

  @Test
  void reportsAnInterruptedCreatingStepThatLeftItsInstanceUntainted() {
    StepExecution ran = ran("r-1", "a#0", "executor-1", 2);
    StepReport report = reported("r-1", "a#0", "replace", "interrupted", false, 30);
    History h = history(100).execution(ran).report(report).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.INTERRUPTED_STEP_NOT_TAINTED,
                "step r-1/a#0 of a replace was reported interrupted at 2026-12-05T10:00:30Z but its"
                    + " instance is not tainted",
                List.of("r-1/a#0"),
                List.of(ran, report)));
  }
}
