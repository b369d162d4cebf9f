package dev.stagecraft.state.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.state.history.Decision;
import dev.stagecraft.state.history.StateDecider;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Recording an action result against a scripted {@link ResultLog}: what the use case decides for
 * each typed answer of the append, without a database (the store's side: StateAppendTest).
 */
class ActionResultsTest {
  private final EventCodec executor = EventCodec.forSource("/test/executor");
  private final StateDecider decider = new StateDecider(() -> "lineage-1");

  @Test
  void anAppendedResultAnswersWithItsEnvelopeDecidedOnTheFold() throws Exception {
    ScriptedLog log = new ScriptedLog(appendedAnswer());
    ActionResults.Recorded recorded = new ActionResults(log, decider).record(source(), finished(1));

    assertThat(recorded.duplicate()).isFalse();
    assertThat(recorded.envelope().id()).isEqualTo("recorded-1");
    assertThat(log.appends).singleElement().satisfies(a -> assertThat(a.stale()).isFalse());
    assertThat(log.appends.get(0).decision().outcome()).isEqualTo(Decision.Outcome.SUCCEEDED);
    assertThat(log.closed).isTrue();
  }

  @Test
  void aRedeliveryAnswersWithTheFirstEnvelopeAndAppendsNothingElse() throws Exception {
    EventEnvelope first = envelope("recorded-first");
    ScriptedLog log = new ScriptedLog(new ResultLog.Answer.Duplicate(first));

    ActionResults.Recorded recorded = new ActionResults(log, decider).record(source(), finished(1));

    assertThat(recorded).isEqualTo(new ActionResults.Recorded(first, true));
    assertThat(log.appends).hasSize(1);
  }

  @Test
  void aStaleTokenIsDecidedAgainAsRejectedKnowingTheNewestToken() throws Exception {
    ScriptedLog log = new ScriptedLog(new ResultLog.Answer.Stale(9), appendedAnswer());

    new ActionResults(log, decider).record(source(), finished(3));

    assertThat(log.appends).hasSize(2);
    assertThat(log.appends.get(0).stale()).isFalse();
    Append second = log.appends.get(1);
    assertThat(second.stale()).as("recorded without checking the token again").isTrue();
    assertThat(second.decision().outcome()).isEqualTo(Decision.Outcome.REJECTED);
    assertThat(second.decision().error()).contains("older than the newest token 9");
    assertThat(log.forgotten).isZero();
  }

  @Test
  void aLostRaceFoldsAgainAndDecidesAgain() throws Exception {
    ScriptedLog log = new ScriptedLog(new ResultLog.Answer.Moved(), appendedAnswer());

    ActionResults.Recorded recorded = new ActionResults(log, decider).record(source(), finished(1));

    assertThat(recorded.duplicate()).isFalse();
    assertThat(log.forgotten).isEqualTo(1);
    assertThat(log.appends).hasSize(2);
  }

  @Test
  void aResultTheLogRefusesIsRecordedRejectedWithTheReason() throws Exception {
    ScriptedLog log = new ScriptedLog(appendedAnswer());
    log.refusal = Optional.of("no active state credential of run run-1 proves it");

    new ActionResults(log, decider).record(source(), finished(1));

    Decision decision = log.appends.get(0).decision();
    assertThat(decision.outcome()).isEqualTo(Decision.Outcome.REJECTED);
    assertThat(decision.error()).isEqualTo("no active state credential of run run-1 proves it");
    assertThat(decision.events()).isEmpty();
  }

  @Test
  void losingTheRaceEveryTimeEndsInATransientFailure() throws Exception {
    ScriptedLog log = new ScriptedLog();
    log.always = new ResultLog.Answer.Moved();

    SQLException failure =
        catchThrowableOfType(
            SQLException.class,
            () -> new ActionResults(log, decider).record(source(), finished(1)));

    assertThat(failure.getSQLState()).isEqualTo("40001");
    assertThat(failure.getMessage()).contains("lost the race");
    assertThat(log.appends).hasSize(ActionResults.MAX_APPEND_ATTEMPTS);
    assertThat(log.closed).isTrue();
  }

  // --- fixtures -----------------------------------------------------------------------------

  private record Append(Decision decision, boolean stale) {}

  /** A log answering appends from a script, on an empty workspace. */
  private static final class ScriptedLog implements ResultLog, ResultLog.Recording {
    final Deque<Answer> answers;
    final List<Append> appends = new ArrayList<>();
    Answer always;
    Optional<String> refusal = Optional.empty();
    int forgotten;
    boolean closed;

    ScriptedLog(Answer... answers) {
      this.answers = new ArrayDeque<>(List.of(answers));
    }

    @Override
    public Recording open(String tenant, String workspace) {
      return this;
    }

    @Override
    public WorkspaceState state() {
      return WorkspaceState.fold(List.of());
    }

    @Override
    public void forget() {
      forgotten++;
    }

    @Override
    public Optional<String> refusal(ActionFinished finished) {
      return refusal;
    }

    @Override
    public Answer append(
        EventEnvelope source, ActionFinished finished, Decision decision, boolean tokenKnownStale) {
      appends.add(new Append(decision, tokenKnownStale));
      return always != null ? always : answers.removeFirst();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private ResultLog.Answer appendedAnswer() {
    return new ResultLog.Answer.Appended(envelope("recorded-1"));
  }

  private EventEnvelope envelope(String id) {
    return executor.wrapWithId(id, "acme", "prod", "run-1", 1, "null_resource.a", finished(1));
  }

  private EventEnvelope source() {
    return executor.wrap("acme", "prod", "run-1", 1, "null_resource.a", finished(1));
  }

  private static ActionFinished finished(long token) {
    return new ActionFinished(
        "run-1",
        "act-1",
        "null_resource.a",
        "null_resource",
        "create",
        "succeeded",
        null,
        null,
        Map.of("id", "i-1"),
        List.of(),
        token,
        "exec-1");
  }
}
