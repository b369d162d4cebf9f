package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeLocks;
import dev.stagecraft.planner.service.run.RunCoordinatorTest.FakeStates;
import dev.stagecraft.planner.service.run.WorkspaceStates.Refusal;
import dev.stagecraft.planner.service.run.WorkspaceStates.TaintChanged;
import dev.stagecraft.planner.service.run.WorkspaceStates.TaintRefused;
import dev.stagecraft.planner.service.run.recovery.InstanceTainter;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Taint and untaint against in-memory lock and state ports: always under the lock, fenced. */
class InstanceTainterTest {
  static final String APP = "stateful_provisioning.app";

  final AtomicInteger ids = new AtomicInteger();
  final FakeLocks locks = new FakeLocks();
  final FakeStates states = new FakeStates();
  final InstanceTainter tainter =
      new InstanceTainter(locks, states, () -> "id" + ids.incrementAndGet());

  @Test
  void marksTheInstanceTaintedUnderTheLockWithItsFencingTokenThenReleasesIt() {
    states.tainted.put(APP, false);
    states.serial = 4;

    var change = tainter.change("acme", "prod", APP, true, "deployer@acme");

    assertThat(change).isEqualTo(new TaintChanged(5));
    assertThat(states.tainted).containsEntry(APP, true);
    assertThat(states.registeredTokens).containsExactly(locks.lastToken);
    assertThat(states.taintCalls)
        .containsExactly(APP + " true token " + locks.lastToken + " by deployer@acme");
    assertThat(locks.holders).containsExactly("taint-id1");
    assertThat(locks.infos).singleElement().asString().contains(APP).contains("deployer@acme");
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void untaintClearsTheMarkAndReleasesTheLock() {
    states.tainted.put(APP, true);

    var change = tainter.change("acme", "prod", APP, false, "admin@acme");

    assertThat(change).isInstanceOf(TaintChanged.class);
    assertThat(states.tainted).containsEntry(APP, false);
    assertThat(locks.holders).containsExactly("untaint-id1");
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void waitsInTheQueueKeepingItsHolderUntilTheLockIsGranted() {
    states.tainted.put(APP, false);
    locks.queuedAnswers = 3;

    var change = tainter.change("acme", "prod", APP, true, "deployer@acme");

    assertThat(change).isInstanceOf(TaintChanged.class);
    assertThat(locks.holders).hasSize(4).containsOnly("taint-id1");
    assertThat(states.taintCalls).hasSize(1);
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void reportsAnUnknownAddressAndStillReleasesTheLock() {
    var change = tainter.change("acme", "prod", "stateful_provisioning.nope", true, "x");

    assertThat(change)
        .isEqualTo(
            new TaintRefused(
                Refusal.NO_SUCH_INSTANCE, "No such resource instance: stateful_provisioning.nope"));
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void refusesToUntaintAnInstanceThatIsNotTaintedAndStillReleasesTheLock() {
    states.tainted.put(APP, false);

    var change = tainter.change("acme", "prod", APP, false, "x");

    assertThat(change).isInstanceOf(TaintRefused.class);
    assertThat(((TaintRefused) change).refusal()).isEqualTo(Refusal.NOT_TAINTED);
    assertThat(states.tainted).containsEntry(APP, false);
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }

  @Test
  void releasesTheLockWhenTheStateServiceFails() {
    states.tainted.put(APP, false);
    states.failure = new IllegalStateException("state-service answered 500");

    assertThatThrownBy(() -> tainter.change("acme", "prod", APP, true, "x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("500");
    assertThat(locks.released).containsExactly(locks.lastLockId);
  }
}
