package dev.stagecraft.planner.service.run.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent.Transitioned;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Given events / when command / then events (and effects) for {@link RunDecider}: {@code
 * given(decider, settings, events...).when(command).thenEvents(...)}. No threads, no waiting.
 */
final class RunScenario {
  static final String RUN = "run-1";

  private final RunDecider decider;
  private final RunState state;

  private RunScenario(RunDecider decider, RunState state) {
    this.decider = decider;
    this.state = state;
  }

  static RunScenario given(RunDecider decider, RunSettings settings, List<RunEvent> events) {
    RunState state = RunState.initial(RUN, settings);
    for (RunEvent e : events) {
      state = RunDecider.apply(state, e);
    }
    return new RunScenario(decider, state);
  }

  /**
   * The events {@code commands} lead to from a new run, each command accepted: a history to start a
   * scenario from.
   */
  static List<RunEvent> history(RunDecider decider, RunSettings settings, RunCommand... commands) {
    return history(decider, settings, List.of(), commands);
  }

  static List<RunEvent> history(
      RunDecider decider, RunSettings settings, List<RunEvent> before, RunCommand... commands) {
    List<RunEvent> events = new ArrayList<>(before);
    RunState state = given(decider, settings, before).state;
    for (RunCommand c : commands) {
      Decision d = decider.decide(c, state);
      assertEquals(Optional.empty(), d.refusal(), () -> "history refused " + c);
      for (RunEvent e : d.events()) {
        state = RunDecider.apply(state, e);
        events.add(e);
      }
    }
    return events;
  }

  RunState state() {
    return state;
  }

  Then when(RunCommand command) {
    Decision decision = decider.decide(command, state);
    RunState after = state;
    for (RunEvent e : decision.events()) {
      after = RunDecider.apply(after, e);
    }
    return new Then(state, decision, after);
  }

  /** What a command did. */
  record Then(RunState before, Decision decision, RunState state) {
    Then thenEvents(RunEvent... expected) {
      assertEquals(Arrays.asList(expected), decision.events());
      return this;
    }

    Then thenNoEvents() {
      assertEquals(List.of(), decision.events());
      return this;
    }

    /** The statuses the run moved to, in order. */
    Then thenTransitions(RunStatus... to) {
      assertEquals(Arrays.asList(to), transitions().stream().map(Transitioned::to).toList());
      return this;
    }

    Then thenLastTransition(RunStatus to, String message) {
      List<Transitioned> ts = transitions();
      assertFalse(ts.isEmpty(), "no transition");
      Transitioned last = ts.getLast();
      assertEquals(to, last.to());
      assertEquals(message, last.message());
      return this;
    }

    Then thenMessageContains(String part) {
      String message = transitions().getLast().message();
      assertTrue(message.contains(part), () -> "'" + part + "' not in: " + message);
      return this;
    }

    List<Transitioned> transitions() {
      return decision.events().stream()
          .filter(Transitioned.class::isInstance)
          .map(Transitioned.class::cast)
          .toList();
    }

    /** The kinds of the effects, in order. */
    @SafeVarargs
    final Then thenEffects(Class<? extends RunEffect>... kinds) {
      assertEquals(
          Arrays.asList(kinds),
          decision.effects().stream().map(e -> (Object) e.getClass()).toList());
      return this;
    }

    Then thenEffect(RunEffect expected) {
      assertTrue(
          decision.effects().contains(expected),
          () -> expected + " not among " + decision.effects());
      return this;
    }

    Then thenNoEffects() {
      assertEquals(List.of(), decision.effects());
      return this;
    }

    Then thenRefused(Refusal why) {
      assertEquals(Optional.of(why), decision.refusal());
      return this;
    }

    Then thenAccepted() {
      assertEquals(Optional.empty(), decision.refusal());
      return this;
    }

    Then thenStatus(RunStatus status) {
      assertEquals(status, state.status());
      return this;
    }

    <T extends RunEffect> T effect(Class<T> kind) {
      return decision.effects().stream()
          .filter(kind::isInstance)
          .map(kind::cast)
          .findFirst()
          .orElseThrow(() -> new AssertionError("no " + kind.getSimpleName()));
    }
  }
}
