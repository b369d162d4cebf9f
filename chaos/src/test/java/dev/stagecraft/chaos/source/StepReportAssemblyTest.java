package dev.stagecraft.chaos.source;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.Fixtures;
import dev.stagecraft.chaos.history.StepKey;
import dev.stagecraft.chaos.history.StepReport;
import dev.stagecraft.chaos.invariant.StepsAtMostOnce;
import dev.stagecraft.chaos.invariant.ViolationKind;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StepReportAssemblyTest {
  static final String A = "r-1/null_resource.a";
  static final String B = "r-1/null_resource.b";

  static EventEnvelope at(long seconds, Object data) {
    return new EventCodec(
            "executor-1", Clock.fixed(t(seconds), ZoneOffset.UTC), () -> "e-" + seconds)
        .wrap("acme", "web", "r-1", seconds, "subject", data);
  }

  static ActionStep step(String action, int index, ActionStep.Status status) {
    return new ActionStep(
        "r-1",
        action,
        "addr",
        "executor-1",
        ActionStep.stepId(action, index),
        index,
        "local-exec",
        null,
        status,
        null);
  }

  static ActionFinished finished(String action, String kind, String outcome) {
    return new ActionFinished(
        "r-1",
        action,
        "addr",
        "null_resource",
        kind,
        outcome,
        null,
        null,
        Map.of(),
        List.of(),
        1,
        "executor-1");
  }

  @Test
  void aStepTakesItsOwnOutcomeWhenItEndedElseItsActionsFirstOne() {
    List<EventEnvelope> events =
        List.of(
            at(1, step(A, 0, ActionStep.STARTED)),
            at(2, step(A, 0, ActionStep.SUCCEEDED)),
            at(3, step(A, 1, ActionStep.STARTED)),
            at(30, finished(A, "create", ActionFinished.INTERRUPTED)),
            at(31, finished(A, "create", ActionFinished.FAILED)), // a late duplicate: ignored
            at(4, step(B, 0, ActionStep.STARTED)),
            at(5, step(B, 0, ActionStep.FAILED)),
            at(6, finished(B, "delete", ActionFinished.FAILED)));

    // step A#2 ran (journal) but its step record never reached the broker
    List<StepReport> reports =
        StepReportAssembly.reports(
            events, Set.of(new ActionKey("r-1", A)), List.of(new StepKey("r-1", A + "#2")));

    assertThat(reports)
        .containsExactly(
            new StepReport("r-1", A, A + "#0", "create", "succeeded", true, t(2)),
            new StepReport("r-1", A, A + "#1", "create", "interrupted", true, t(30)),
            new StepReport("r-1", A, A + "#2", "create", "interrupted", true, t(30)),
            new StepReport("r-1", B, B + "#0", "delete", "failed", false, t(5)));
  }

  @Test
  void anInterruptedCreateWhoseInstanceWasNotTaintedIsFoundByTheChecker() {
    List<EventEnvelope> events =
        List.of(
            at(1, step(A, 0, ActionStep.STARTED)),
            at(30, finished(A, "create", ActionFinished.INTERRUPTED)));

    var history =
        Fixtures.history(100)
            .execution(Fixtures.ran("r-1", A + "#0", "executor-1", 1))
            .reports(StepReportAssembly.reports(events, Set.of(), List.of()))
            .build();

    assertThat(new StepsAtMostOnce().check(history))
        .extracting(v -> v.kind())
        .containsExactly(ViolationKind.INTERRUPTED_STEP_NOT_TAINTED);
  }
}
