package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.state.history.Decision.Outcome;
import dev.stagecraft.state.history.StateEvent.InstanceRemoved;
import dev.stagecraft.state.history.StateEvent.InstanceWritten;
import dev.stagecraft.state.history.StateEvent.LineageAssigned;
import dev.stagecraft.state.history.StateEvent.RemoveKind;
import dev.stagecraft.state.history.StateEvent.WriteKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Given events, when an action result arrives, then these events (or none) are decided. */
class StateDeciderTest {
  private static final String APP = "stateful_provisioning.app";
  private final StateDecider decider = new StateDecider(() -> "lineage-1");

  private static ActionFinished result(String action, String outcome, long token) {
    return new ActionFinished(
        "run-1",
        "act-1",
        APP,
        "stateful_provisioning",
        action,
        outcome,
        null,
        outcome.equals("failed") ? "step 2 exited with 1" : null,
        Map.of("id", "i-1", "host", "10.0.0.1"),
        List.of("stateful_provisioning.db"),
        token,
        "exec-1");
  }

  private static WorkspaceState given(StateEvent... events) {
    return WorkspaceState.fold(List.of(events));
  }

  private static InstanceWritten existing() {
    return new InstanceWritten(
        APP, "stateful_provisioning", Map.of("id", "i-0"), List.of(), false, WriteKind.CREATED);
  }

  @Test
  void firstCreateAssignsLineageAndWritesInstance() {
    Decision d = decider.decide(result("create", "succeeded", 1), WorkspaceState.EMPTY, 0);

    assertThat(d.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(d.serial()).isEqualTo(1);
    assertThat(d.events())
        .containsExactly(
            new LineageAssigned("lineage-1"),
            new InstanceWritten(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-1", "host", "10.0.0.1"),
                List.of("stateful_provisioning.db"),
                false,
                WriteKind.CREATED));
    WorkspaceState after = WorkspaceState.EMPTY;
    for (StateEvent e : d.events()) {
      after = after.apply(e);
    }
    assertThat(after.serial()).isEqualTo(1);
    assertThat(after.lineage()).isEqualTo("lineage-1");
    assertThat(after.instances()).containsKey(APP);
  }

  @Test
  void laterWritesKeepLineageAndBumpSerial() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("update", "succeeded", 3), current, 2);

    assertThat(d.events()).hasSize(1).first().isInstanceOf(InstanceWritten.class);
    assertThat(((InstanceWritten) d.events().get(0)).kind()).isEqualTo(WriteKind.UPDATED);
    assertThat(d.serial()).isEqualTo(2);
  }

  @Test
  void rejectsStateWriteWithStaleFencingToken() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("update", "succeeded", 4), current, 5);

    assertThat(d.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(d.events()).isEmpty();
    assertThat(d.serial()).isEqualTo(1);
    assertThat(d.error()).contains("fencing token 4").contains("newest token 5");
  }

  @Test
  void acceptsTokenEqualToNewest() {
    Decision d = decider.decide(result("create", "succeeded", 5), WorkspaceState.EMPTY, 5);

    assertThat(d.outcome()).isEqualTo(Outcome.SUCCEEDED);
  }

  @Test
  void succeededDeleteRemovesInstance() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("delete", "succeeded", 1), current, 1);

    assertThat(d.events()).containsExactly(new InstanceRemoved(APP, RemoveKind.DELETED));
    assertThat(d.serial()).isEqualTo(2);
    assertThat(current.apply(d.events().get(0)).instances()).isEmpty();
  }

  @Test
  void succeededForgetRemovesInstanceAsForgotten() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("forget", "succeeded", 1), current, 1);

    assertThat(d.events()).containsExactly(new InstanceRemoved(APP, RemoveKind.FORGOTTEN));
  }

  @Test
  void failedCreateWritesTaintedInstance() {
    Decision d = decider.decide(result("create", "failed", 1), WorkspaceState.EMPTY, 0);

    assertThat(d.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(d.serial()).isEqualTo(1);
    assertThat(d.error()).isEqualTo("step 2 exited with 1");
    InstanceWritten written = (InstanceWritten) d.events().get(1);
    assertThat(written.tainted()).isTrue();
    assertThat(written.kind()).isEqualTo(WriteKind.TAINTED);
  }

  @Test
  void failedReplaceWritesTaintedInstance() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("replace", "failed", 1), current, 1);

    assertThat(d.events()).singleElement().matches(e -> ((InstanceWritten) e).tainted());
    assertThat(current.apply(d.events().get(0)).instances().get(APP).tainted()).isTrue();
  }

  @Test
  void failedDeleteKeepsInstance() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("delete", "failed", 1), current, 1);

    assertThat(d.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(d.events()).isEmpty();
    assertThat(d.serial()).isEqualTo(1);
  }

  @Test
  void deletingAnAbsentInstanceChangesNothing() {
    Decision d = decider.decide(result("delete", "succeeded", 1), WorkspaceState.EMPTY, 0);

    assertThat(d.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(d.events()).isEmpty();
    assertThat(d.serial()).isZero();
  }

  @Test
  void rejectsInvalidAddress() {
    ActionFinished bad =
        new ActionFinished(
            "r", "a", "not an address", "t", "create", "succeeded", null, null, null, null, 1, "e");

    Decision d = decider.decide(bad, WorkspaceState.EMPTY, 0);

    assertThat(d.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(d.error()).contains("invalid instance address");
  }
}
