package dev.stagecraft.chaos.source;

import dev.stagecraft.chaos.history.StepKey;
import dev.stagecraft.chaos.history.StepReport;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds {@link StepReport}s from the action events ({@code stagecraft.action-events}, in topic
 * order) and the actions whose instance the state recorded tainted. A step's outcome is its own
 * ({@code action.step} {@code succeeded}/{@code failed}) when it ended; a step that started but did
 * not end, or that ran (a journal has its token) without a step record — the executor died before
 * its report reached the broker — takes its action's outcome ({@code interrupted}, {@code
 * canceled}, {@code failed}). Only an action's first {@code action.finished} counts, as in the
 * state service. A step whose action never finished has no report.
 */
public final class StepReportAssembly {
  private StepReportAssembly() {}

  private record Seen(ActionStep step, Instant at) {}

  public static List<StepReport> reports(
      List<EventEnvelope> actionEvents, Set<ActionKey> tainted, Collection<StepKey> executedSteps) {
    Map<ActionKey, ActionFinished> finished = new HashMap<>();
    Map<ActionKey, Instant> finishedAt = new HashMap<>();
    Map<StepKey, Seen> ended = new HashMap<>();
    Map<StepKey, String> actionOf = new HashMap<>();
    for (EventEnvelope e : actionEvents) {
      if (EventType.ACTION_FINISHED.type().equals(e.type())) {
        ActionFinished f = EventCodec.data(e, ActionFinished.class);
        ActionKey key = new ActionKey(f.runId(), f.actionId());
        if (finished.putIfAbsent(key, f) == null) {
          finishedAt.put(key, e.time());
        }
      } else if (EventType.ACTION_STEP.type().equals(e.type())) {
        ActionStep s = EventCodec.data(e, ActionStep.class);
        StepKey key = new StepKey(s.runId(), s.stepId());
        actionOf.put(key, s.actionId());
        if (!ActionStep.STARTED.equals(s.status())) {
          ended.putIfAbsent(key, new Seen(s, e.time()));
        }
      }
    }
    TreeSet<StepKey> steps = new TreeSet<>(actionOf.keySet());
    steps.addAll(executedSteps);
    List<StepReport> reports = new ArrayList<>();
    for (StepKey step : steps) {
      String actionId = actionOf.getOrDefault(step, actionIdOf(step.stepId()));
      ActionKey action = new ActionKey(step.runId(), actionId);
      ActionFinished f = finished.get(action);
      Seen own = ended.get(step);
      if (f == null && own == null) {
        continue;
      }
      String outcome = own != null ? own.step().status().wire() : f.outcome();
      Instant at = own != null ? own.at() : finishedAt.get(action);
      reports.add(
          new StepReport(
              step.runId(),
              actionId,
              step.stepId(),
              f == null ? null : f.action(),
              outcome,
              tainted.contains(action),
              at));
    }
    return reports;
  }

  /** {@code <actionId>#<index>} → {@code <actionId>}. */
  static String actionIdOf(String stepId) {
    int hash = stepId.lastIndexOf('#');
    return hash < 0 ? stepId : stepId.substring(0, hash);
  }
}
