package dev.stagecraft.planner.service.run.lifecycle;

import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.AUTO;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.CREDENTIAL;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.DONE;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.LOCK;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.RUNNING;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.T0;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.TOKEN;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.at;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.plan;
import static dev.stagecraft.planner.service.run.lifecycle.RunDeciderTest.recorded;
import static dev.stagecraft.planner.service.run.lifecycle.RunScenario.RUN;
import static dev.stagecraft.planner.service.run.lifecycle.RunScenario.given;
import static dev.stagecraft.planner.service.run.lifecycle.RunScenario.history;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stagecraft.planner.apply.PlannedStep;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.ActionHeartbeat;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Admitted;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.CancelRequested;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.CarriedOutcomesRead;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.CarryOn;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockGranted;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockLoss;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.LockLost;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Opened;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Planned;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand.Tick;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.ReleaseLock;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.RevokeCredential;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect.StopHeartbeat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the decider carries on from a run's dispatches after a restart (its credential, the wording
 * of {@code CarriedActions}), and how an interrupted action is named (the step, its type and host),
 * as the coordinator does it.
 */
class CarriedRunAndLeaseDecisionsTest {
  final RunDeciderTest rows = new RunDeciderTest();
  final RunDecider decider = rows.decider;

  List<RunEvent> carriedWithCredential() {
    return history(
        decider,
        AUTO,
        new CarryOn(20, "Resumed …", List.of(DONE, RUNNING), null, CREDENTIAL),
        new Admitted(),
        new LockGranted(LOCK, TOKEN),
        new CarriedOutcomesRead(Map.of(DONE.actionId(), "succeeded"), at(30)));
  }

  @Test
  void aCarriedOnRunTakesBackTheCredentialItsDispatchesCarriedOnceItHoldsTheLock() {
    var waiting =
        history(
            decider,
            AUTO,
            new CarryOn(20, "Resumed …", List.of(DONE, RUNNING), null, CREDENTIAL),
            new Admitted(),
            new LockGranted(LOCK, TOKEN));
    assertNull(given(decider, AUTO, waiting).state().credential()); // not before the lock
    var then =
        given(decider, AUTO, waiting)
            .when(new CarriedOutcomesRead(Map.of(DONE.actionId(), "succeeded"), at(30)))
            .thenStatus(RunStatus.APPLYING);
    assertEquals(CREDENTIAL, then.state().credential());
  }

  @Test
  void aCarriedOnRunRevokesTheTakenBackCredentialWhenItEnds() {
    given(decider, AUTO, carriedWithCredential())
        .when(new LockLost(LockLoss.HEARTBEAT_REFUSED, LOCK, TOKEN, RunMessages.heartbeatRefused()))
        .thenEffects(
            RevokeCredential.class,
            StopHeartbeat.class,
            ReleaseLock.class,
            RunEffect.RecordTransition.class,
            RunEffect.PublishTransition.class,
            RunEffect.Close.class);
  }

  @Test
  void aCarriedOnRunCanceledBeforeItHoldsTheLockRevokesNothing() {
    var pending =
        history(
            decider,
            AUTO,
            new CarryOn(20, "Resumed …", List.of(DONE, RUNNING), null, CREDENTIAL),
            new Admitted());
    var then =
        given(decider, AUTO, pending)
            .when(new CancelRequested("alice@acme"))
            .thenStatus(RunStatus.CANCELED);
    assertEquals(
        List.of(),
        then.decision().effects().stream().filter(RevokeCredential.class::isInstance).toList());
  }

  @Test
  void aCarriedOnRunThatAppliedTheRestCountsBothSidesResources() {
    var applyingRest =
        history(
            decider,
            AUTO,
            carriedWithCredential(),
            recorded("c.z", "succeeded", 40),
            new Opened(CREDENTIAL),
            new Planned(plan("digest-rest", PlannedStep.of("d.w")), 4, null, at(50)));
    var then = given(decider, AUTO, applyingRest).when(recorded("d.w", "succeeded", 60));
    assertEquals(
        "Apply complete! Resources: 3 added, 0 changed, 0 destroyed. Of them, 2 added, 0 changed,"
            + " 0 destroyed by the actions dispatched before its planner instance stopped.",
        then.state().finishingMessage());
  }

  @Test
  void aCarriedReplaceThatForgetsTheOldObjectCountsAsAddedOnly() {
    CarriedAction replaced =
        new CarriedAction(RUN + "/r.q", "r.q", "replace", T0, true, /* skipDestroy */ true);
    CarriedAction destroyed = new CarriedAction(RUN + "/s.t", "s.t", "replace", T0, true);
    var settled =
        history(
            decider,
            AUTO,
            new CarryOn(20, "Resumed …", List.of(replaced, destroyed), null),
            new Admitted(),
            new LockGranted(LOCK, TOKEN),
            new CarriedOutcomesRead(
                Map.of(replaced.actionId(), "succeeded", destroyed.actionId(), "succeeded"),
                at(30)),
            new Opened(CREDENTIAL));
    var then =
        given(decider, AUTO, settled).when(new Planned(RunDeciderTest.NO_CHANGES, 4, null, at(50)));
    assertEquals(
        "Apply complete! Resources: 2 added, 0 changed, 1 destroyed. 2 action(s) applied, all"
            + " dispatched before its planner instance stopped; nothing remained.",
        then.state().finishingMessage());
  }

  @Test
  void anInterruptedActionIsNamedByTheStepItsExecutorLastReported() {
    var running =
        history(
            decider,
            AUTO,
            rows.applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new ActionHeartbeat(RUN + "/a.x", "exec-1", 2, "remote-exec", "10.0.0.5", at(5)),
            // a log line names no step: the step stays the one reported
            new ActionHeartbeat(RUN + "/a.x", null, at(6)));
    var then = given(decider, AUTO, running).when(new Tick(at(22), null));
    assertEquals(
        "step 2 (remote-exec) on 10.0.0.5 was interrupted: executor exec-1 stopped reporting (no"
            + " heartbeat for 15 s). The step may have partly run; it was not run again. The"
            + " instance is tainted; the next apply replaces it.",
        then.state().cutShort().get("a.x"));
  }

  @Test
  void anInterruptedActionWithoutAReportedStepSaysSo() {
    var running =
        history(
            decider,
            AUTO,
            rows.applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new ActionHeartbeat(RUN + "/a.x", "exec-1", null, null, null, at(5)));
    var then = given(decider, AUTO, running).when(new Tick(at(21), null));
    assertEquals(
        "the action was interrupted with no step reported running (between steps, or as one"
            + " started): executor exec-1 stopped reporting (no heartbeat for 15 s). A step that"
            + " had just started may have partly run; it was not run again. The instance is"
            + " tainted; the next apply replaces it.",
        then.state().cutShort().get("a.x"));
  }

  @Test
  void aStepOnTheExecutorHostIsNamedSo() {
    var running =
        history(
            decider,
            AUTO,
            rows.applying(),
            new RunCommand.ActionStarted(RUN + "/a.x", "exec-1", at(1)),
            new ActionHeartbeat(RUN + "/a.x", "exec-1", 1, "local-exec", null, at(5)));
    var then = given(decider, AUTO, running).when(new Tick(at(21), null));
    assertTrue(
        then.state()
            .cutShort()
            .get("a.x")
            .startsWith(
                "step 1 (local-exec) on the executor host was interrupted: executor exec-1"
                    + " stopped reporting"));
  }
}
