package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.state.history.Decision.Outcome;
import dev.stagecraft.state.history.StateEvent.InstanceRemoved;
import dev.stagecraft.state.history.StateEvent.InstanceTaintChanged;
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

  private static final String OLD = "stateful_provisioning.old";

  private static WorkspaceState withOld() {
    return given(
        new LineageAssigned("l"),
        new InstanceWritten(
            OLD,
            "stateful_provisioning",
            Map.of("id", "i-0", "host", "10.0.0.9"),
            List.of(),
            false,
            WriteKind.CREATED,
            true,
            false));
  }

  @Test
  void aMoveMovesTheInstanceAsTheStateHoldsIt() {
    WorkspaceState current = withOld();

    Decision d =
        decider.decide(result("move", "succeeded", 3).withPreviousAddress(OLD), current, 2);

    assertThat(d.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(d.events()).containsExactly(new StateEvent.InstanceMoved(OLD, APP, null, null));
    WorkspaceState after = current.apply(d.events().get(0));
    assertThat(after.instances()).containsOnlyKeys(APP);
    assertThat(after.instances().get(APP))
        .satisfies(
            i -> {
              assertThat(i.attributes()).containsEntry("host", "10.0.0.9");
              assertThat(i.createBeforeDestroy()).isTrue();
            });
    assertThat(d.serial()).isEqualTo(after.serial()).isEqualTo(current.serial() + 1);

    Decision again =
        decider.decide(result("move", "succeeded", 3).withPreviousAddress(OLD), after, 3);
    assertThat(again.events()).as("a result that comes again moves nothing").isEmpty();
    assertThat(again.serial()).isEqualTo(after.serial());
  }

  @Test
  void aFailedReplaceOfAMovedInstanceStillRecordsTheMoveThenTheTaint() {
    WorkspaceState current = withOld();

    Decision d =
        decider.decide(result("replace", "failed", 3).withPreviousAddress(OLD), current, 2);

    assertThat(d.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(d.events()).hasSize(2);
    assertThat(d.events().get(0)).isEqualTo(new StateEvent.InstanceMoved(OLD, APP, null, null));
    assertThat(((InstanceWritten) d.events().get(1)).kind()).isEqualTo(WriteKind.TAINTED);
    WorkspaceState after = current;
    for (StateEvent e : d.events()) {
      after = after.apply(e);
    }
    assertThat(after.instances()).containsOnlyKeys(APP);
    assertThat(after.instances().get(APP).tainted()).isTrue();
    assertThat(d.serial()).isEqualTo(after.serial()).isEqualTo(current.serial() + 2);
  }

  @Test
  void aMoveToAnotherTypeTakesTheNewTypeAndAttributes() {
    WorkspaceState current = withOld();
    ActionFinished toData =
        new ActionFinished(
                "run-1",
                "act-1",
                "terraform_data.app",
                "terraform_data",
                "move",
                "succeeded",
                null,
                null,
                Map.of("id", "i-0", "triggers_replace", Map.of("v", "1")),
                List.of(),
                3,
                "exec-1")
            .withPreviousAddress(OLD);

    Decision d = decider.decide(toData, current, 2);

    WorkspaceState after = current.apply(d.events().get(0));
    assertThat(after.instances()).containsOnlyKeys("terraform_data.app");
    assertThat(after.instances().get("terraform_data.app").resourceType())
        .isEqualTo("terraform_data");
    assertThat(after.instances().get("terraform_data.app").attributes())
        .containsEntry("triggers_replace", Map.of("v", "1"));
  }

  @Test
  void aMoveWithAStaleTokenWritesNothing() {
    Decision d =
        decider.decide(result("move", "succeeded", 1).withPreviousAddress(OLD), withOld(), 2);
    assertThat(d.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(d.events()).isEmpty();
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
  void forgetRemovesOnlyThatInstanceAndWritesNothingElse() {
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            new InstanceWritten(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-0"),
                List.of(),
                false,
                WriteKind.CREATED,
                false,
                true),
            new InstanceWritten(
                "stateful_provisioning.db",
                "stateful_provisioning",
                Map.of("id", "i-db"),
                List.of(),
                false,
                WriteKind.CREATED));

    Decision d = decider.decide(flagged("forget", "succeeded", null, null), current, 1);

    assertThat(d.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(d.events()).containsExactly(new InstanceRemoved(APP, RemoveKind.FORGOTTEN));
    assertThat(d.serial()).isEqualTo(current.serial() + 1);
    WorkspaceState after = current.apply(d.events().get(0));
    assertThat(after.instances()).containsOnlyKeys("stateful_provisioning.db");
    assertThat(after.instances().get("stateful_provisioning.db"))
        .isEqualTo(current.instances().get("stateful_provisioning.db"));
    assertThat(after.lineage()).isEqualTo("l");
  }

  // --- lifecycle flags ------------------------------------------------------------------------

  private static ActionFinished flagged(
      String action, String outcome, Boolean createBeforeDestroy, Boolean skipDestroy) {
    return new ActionFinished(
        "run-2",
        "act-2",
        APP,
        "stateful_provisioning",
        action,
        outcome,
        null,
        outcome.equals("failed") ? "step 1 exited with 2" : null,
        Map.of("id", "i-2"),
        List.of("stateful_provisioning.db"),
        1,
        "exec-1",
        createBeforeDestroy,
        skipDestroy);
  }

  @Test
  void recordsCreateBeforeDestroyAndSkipDestroyOfTheResult() {
    Decision d =
        decider.decide(flagged("create", "succeeded", true, true), WorkspaceState.EMPTY, 0);

    InstanceWritten written = (InstanceWritten) d.events().get(1);
    assertThat(written.createBeforeDestroy()).isTrue();
    assertThat(written.skipDestroy()).isTrue();
    InstanceState instance = WorkspaceState.fold(d.events()).instances().get(APP);
    assertThat(instance.createBeforeDestroy()).isTrue();
    assertThat(instance.skipDestroy()).isTrue();
  }

  @Test
  void resultWithoutLifecycleFlagsRecordsThemFalse() {
    // an executor older than the flags sends neither (null)
    Decision d = decider.decide(result("create", "succeeded", 1), WorkspaceState.EMPTY, 0);

    InstanceState instance = WorkspaceState.fold(d.events()).instances().get(APP);
    assertThat(instance.createBeforeDestroy()).isFalse();
    assertThat(instance.skipDestroy()).isFalse();
  }

  @Test
  void laterWriteReplacesTheFlagsOfTheEarlierOne() {
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            new InstanceWritten(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-0"),
                List.of(),
                false,
                WriteKind.CREATED,
                true,
                true));

    Decision d = decider.decide(flagged("replace", "succeeded", false, null), current, 1);

    InstanceState instance = current.apply(d.events().get(0)).instances().get(APP);
    assertThat(instance.createBeforeDestroy()).isFalse();
    assertThat(instance.skipDestroy()).isFalse();
  }

  @Test
  void failedCbdReplaceKeepsTheFlagsOnTheTaintedInstance() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(flagged("replace", "failed", true, false), current, 1);

    InstanceState instance = current.apply(d.events().get(0)).instances().get(APP);
    assertThat(instance.tainted()).isTrue();
    assertThat(instance.createBeforeDestroy()).isTrue();
  }

  @Test
  void forgetThenCreateReplaceOverwritesTheInstance() {
    // ["forget","create"]: the executor reports one succeeded "replace" with skipDestroy
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            new InstanceWritten(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-0", "state_key", "r1"),
                List.of(),
                false,
                WriteKind.CREATED,
                false,
                true));

    Decision d = decider.decide(flagged("replace", "succeeded", false, true), current, 1);

    assertThat(d.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(d.events())
        .containsExactly(
            new InstanceWritten(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-2"),
                List.of("stateful_provisioning.db"),
                false,
                WriteKind.REPLACED,
                false,
                true));
    WorkspaceState after = current.apply(d.events().get(0));
    assertThat(after.serial()).isEqualTo(2);
    assertThat(after.instances()).containsOnlyKeys(APP);
    assertThat(after.instances().get(APP))
        .isEqualTo(
            new InstanceState(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-2"),
                List.of("stateful_provisioning.db"),
                false,
                false,
                true));
  }

  @Test
  void taintChangeKeepsTheLifecycleFlags() {
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            new InstanceWritten(
                APP,
                "stateful_provisioning",
                Map.of("id", "i-0"),
                List.of(),
                false,
                WriteKind.CREATED,
                true,
                true),
            new InstanceTaintChanged(APP, true));

    InstanceState instance = current.instances().get(APP);
    assertThat(instance.tainted()).isTrue();
    assertThat(instance.createBeforeDestroy()).isTrue();
    assertThat(instance.skipDestroy()).isTrue();
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
  void interruptedOrCanceledCreateWritesTaintedInstanceWithTheReason() {
    for (String outcome : List.of(ActionFinished.INTERRUPTED, ActionFinished.CANCELED)) {
      ActionFinished cut =
          new ActionFinished(
              "run-1",
              "act-1",
              APP,
              "stateful_provisioning",
              "create",
              outcome,
              null,
              "step 0 (local-exec) on the executor host was interrupted",
              Map.of("id", "i-1"),
              List.of(),
              1,
              "exec-1");

      Decision d = decider.decide(cut, WorkspaceState.EMPTY, 0);

      assertThat(d.outcome()).as(outcome).isEqualTo(Outcome.FAILED);
      assertThat(d.error()).contains("step 0 (local-exec) on the executor host was interrupted");
      InstanceWritten written = (InstanceWritten) d.events().get(1);
      assertThat(written.tainted()).as(outcome).isTrue();
    }
  }

  @Test
  void interruptedDeleteKeepsInstance() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    Decision d = decider.decide(result("delete", ActionFinished.INTERRUPTED, 1), current, 1);

    assertThat(d.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(d.events()).isEmpty();
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

  // --- taint / untaint ----------------------------------------------------------------------

  private static WorkspaceState taintedApp() {
    return given(new LineageAssigned("l"), existing(), new InstanceTaintChanged(APP, true));
  }

  @Test
  void taintMarksTheInstanceAndBumpsTheSerial() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    TaintDecision d = decider.decideTaint(APP, true, 4, current, 4);

    assertThat(d.accepted()).isTrue();
    assertThat(d.events()).containsExactly(new InstanceTaintChanged(APP, true));
    assertThat(d.serial()).isEqualTo(2);
    WorkspaceState after = current.apply(d.events().get(0));
    assertThat(after.serial()).isEqualTo(2);
    assertThat(after.instances().get(APP))
        .isEqualTo(
            new InstanceState(APP, "stateful_provisioning", Map.of("id", "i-0"), List.of(), true));
  }

  @Test
  void taintingATaintedInstanceSucceedsWithoutWriting() {
    TaintDecision d = decider.decideTaint(APP, true, 1, taintedApp(), 1);

    assertThat(d.accepted()).isTrue();
    assertThat(d.events()).isEmpty();
    assertThat(d.serial()).isEqualTo(2);
  }

  @Test
  void untaintClearsTheMarkAndBumpsTheSerial() {
    WorkspaceState current = taintedApp();

    TaintDecision d = decider.decideTaint(APP, false, 1, current, 1);

    assertThat(d.events()).containsExactly(new InstanceTaintChanged(APP, false));
    assertThat(d.serial()).isEqualTo(3);
    assertThat(current.apply(d.events().get(0)).instances().get(APP).tainted()).isFalse();
  }

  @Test
  void untaintClearsTheMarkLeftByAFailedCreate() {
    WorkspaceState current = WorkspaceState.EMPTY;
    for (StateEvent e : decider.decide(result("create", "failed", 1), current, 0).events()) {
      current = current.apply(e);
    }

    TaintDecision d = decider.decideTaint(APP, false, 1, current, 1);

    assertThat(d.accepted()).isTrue();
    assertThat(current.apply(d.events().get(0)).instances().get(APP).tainted()).isFalse();
  }

  @Test
  void refusesUntaintOfAnInstanceThatIsNotTainted() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    TaintDecision d = decider.decideTaint(APP, false, 1, current, 1);

    assertThat(d.rejection()).isEqualTo(TaintDecision.Rejection.NOT_TAINTED);
    assertThat(d.events()).isEmpty();
    assertThat(d.serial()).isEqualTo(1);
    assertThat(d.error())
        .isEqualTo(
            "Resource instance "
                + APP
                + " is not currently tainted, and"
                + " so it cannot be untainted.");
  }

  @Test
  void refusesTaintOfAnAddressNotInTheState() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    TaintDecision d = decider.decideTaint("stateful_provisioning.other", true, 1, current, 1);

    assertThat(d.rejection()).isEqualTo(TaintDecision.Rejection.NO_SUCH_INSTANCE);
    assertThat(d.error()).isEqualTo("No such resource instance: stateful_provisioning.other");
    assertThat(d.events()).isEmpty();
  }

  @Test
  void refusesTaintOfAnEmptyWorkspace() {
    TaintDecision d = decider.decideTaint(APP, true, 1, WorkspaceState.EMPTY, 0);

    assertThat(d.rejection()).isEqualTo(TaintDecision.Rejection.NO_SUCH_INSTANCE);
    assertThat(d.serial()).isZero();
  }

  @Test
  void rejectsTaintWithStaleFencingToken() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    TaintDecision d = decider.decideTaint(APP, true, 4, current, 5);

    assertThat(d.rejection()).isEqualTo(TaintDecision.Rejection.STALE_FENCING_TOKEN);
    assertThat(d.events()).isEmpty();
    assertThat(d.error()).contains("fencing token 4").contains("newest token 5");
  }

  @Test
  void refusesTaintOfAnInvalidAddressOrADataResource() {
    WorkspaceState current = given(new LineageAssigned("l"), existing());

    assertThat(decider.decideTaint("not an address", true, 1, current, 1).rejection())
        .isEqualTo(TaintDecision.Rejection.INVALID_ADDRESS);
    TaintDecision data = decider.decideTaint("data.x.y", true, 1, current, 1);
    assertThat(data.rejection()).isEqualTo(TaintDecision.Rejection.INVALID_ADDRESS);
    assertThat(data.error()).contains("only managed resources");
  }

  @Test
  void findsAnIndexedInstanceByItsCanonicalAddress() {
    String keyed = "stateful_provisioning.app[\"blue\"]";
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            new InstanceWritten(
                keyed, "stateful_provisioning", Map.of(), List.of(), false, WriteKind.CREATED));

    TaintDecision d = decider.decideTaint(keyed, true, 1, current, 1);

    assertThat(d.events()).containsExactly(new InstanceTaintChanged(keyed, true));
  }

  // --- a run's root outputs (docs/adr/0064) -------------------------------------------------

  private static Map<String, Object> output(Object value, Object type, boolean sensitive) {
    Map<String, Object> o = new java.util.LinkedHashMap<>();
    o.put("value", value);
    o.put("type", type);
    o.put("sensitive", sensitive);
    return o;
  }

  @Test
  void outputsOfARunReplaceTheWholeSetAndBumpTheSerial() {
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            existing(),
            new StateEvent.OutputsWritten(
                Map.of("old", output("x", "string", false), "kept", output(1, "number", false))));

    OutputsDecision d =
        decider.decideOutputs(
            Map.of(
                "kept", Map.of("value", 2, "type", "number"),
                "ids",
                    output(List.of("a", "b"), List.of("tuple", List.of("string", "string")), false),
                "password", output("sc:sealed:v1:k1:abc", "string", true)),
            5,
            current,
            5);

    assertThat(d.accepted()).isTrue();
    assertThat(d.serial()).isEqualTo(current.serial() + 1);
    assertThat(d.events()).hasSize(1).first().isInstanceOf(StateEvent.OutputsWritten.class);
    WorkspaceState after = current.apply(d.events().get(0));
    // "old" is gone: an output removed from the configuration disappears
    assertThat(after.outputs().keySet()).containsExactly("ids", "kept", "password");
    assertThat(after.outputs().get("kept")).isEqualTo(output(2, "number", false));
    assertThat(after.instances()).containsKey(APP);
    Map<String, Object> v4 = TerraformStateV4.render(after, "l");
    assertThat(v4.get("outputs")).isEqualTo(after.outputs());
    assertThat(v4.get("serial")).isEqualTo(after.serial());
  }

  @Test
  void theSameOutputsAgainWriteNothingSoARetryIsHarmless() {
    WorkspaceState current =
        given(
            new LineageAssigned("l"),
            new StateEvent.OutputsWritten(Map.of("n", output(1, "number", false))));

    // 1.0 and 1 are the same JSON number; "sensitive" absent means false
    OutputsDecision d =
        decider.decideOutputs(Map.of("n", Map.of("value", 1.0, "type", "number")), 3, current, 3);

    assertThat(d.accepted()).isTrue();
    assertThat(d.events()).isEmpty();
    assertThat(d.serial()).isEqualTo(current.serial());
  }

  @Test
  void aStaleFencingTokenRecordsNoOutputs() {
    OutputsDecision d =
        decider.decideOutputs(
            Map.of("n", output(1, "number", false)), 4, given(new LineageAssigned("l")), 5);

    assertThat(d.accepted()).isFalse();
    assertThat(d.rejection()).isEqualTo(OutputsDecision.Rejection.STALE_FENCING_TOKEN);
    assertThat(d.error()).contains("fencing token 4 is older than the newest token 5");
    assertThat(d.events()).isEmpty();
  }

  @Test
  void outputsNotInTerraformsFormAreRefusedNamingTheField() {
    WorkspaceState current = given(new LineageAssigned("l"));

    assertThat(decider.decideOutputs(Map.of("n", Map.of("value", 1)), 1, current, 1).error())
        .contains("outputs.n.type must be a Terraform type");
    assertThat(
            decider
                .decideOutputs(
                    Map.of("n", Map.of("value", 1, "type", List.of("list"))), 1, current, 1)
                .rejection())
        .isEqualTo(OutputsDecision.Rejection.INVALID_OUTPUTS);
    assertThat(
            decider
                .decideOutputs(
                    Map.of("n", Map.of("value", 1, "type", "number", "sensitive", "yes")),
                    1,
                    current,
                    1)
                .error())
        .contains("outputs.n.sensitive must be true or false");
    assertThat(
            decider
                .decideOutputs(Map.of("bad name", output(1, "number", false)), 1, current, 1)
                .error())
        .contains("output name \"bad name\" is not a valid name");
  }

  @Test
  void firstOutputsOfAnEmptyWorkspaceAssignTheLineage() {
    OutputsDecision d =
        decider.decideOutputs(Map.of("n", output(1, "number", false)), 1, WorkspaceState.EMPTY, 0);

    assertThat(d.events().get(0)).isEqualTo(new LineageAssigned("lineage-1"));
    assertThat(d.serial()).isEqualTo(1);
    // a destroy of a workspace never written (no outputs to remove) writes nothing
    assertThat(decider.decideOutputs(Map.of(), 1, WorkspaceState.EMPTY, 0).events()).isEmpty();
  }

  @Test
  void theNewestWriteWinsBetweenAPushedDocumentsOutputsAndARunsOutputs() {
    Map<String, Object> document = new java.util.LinkedHashMap<>();
    document.put("version", 4);
    document.put("terraform_version", "1.9.0");
    document.put("serial", 3);
    document.put("lineage", "l");
    document.put("outputs", Map.of("pushed", output("p", "string", false)));
    document.put("resources", List.of());
    StateEvent push = new StateEvent.StateReplaced(document, StateEvent.ReplaceKind.PUSHED, null);
    WorkspaceState pushed = given(push);
    assertThat(pushed.outputs()).containsOnlyKeys("pushed");
    assertThat(DocumentDecider.sameJson(TerraformStateV4.render(pushed, "l"), document)).isTrue();

    // a run applied after the push: its outputs replace the pushed ones
    WorkspaceState afterRun =
        pushed.apply(
            decider
                .decideOutputs(Map.of("run", output("r", "string", false)), 2, pushed, 2)
                .events()
                .get(0));
    Map<String, Object> v4 = TerraformStateV4.render(afterRun, "l");
    assertThat(((Map<?, ?>) v4.get("outputs")).keySet()).isEqualTo(java.util.Set.of("run"));
    assertThat(v4.get("terraform_version")).isEqualTo("1.9.0");
    assertThat(v4.get("serial")).isEqualTo(4L);

    // a push after the run: the pushed document's outputs again
    assertThat(afterRun.apply(push).outputs()).containsOnlyKeys("pushed");
    // a deleted state has none
    assertThat(afterRun.apply(new StateEvent.StateDeleted("gone")).outputs()).isEmpty();
  }
}
