package dev.stagecraft.planner.service.run.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The liveness lease of a planner instance: its settings and when it fences itself. */
class InstanceLeaseTest {

  @Test
  void anInstanceFencesItselfOneHeartbeatBeforeItsLeaseRunsOut() {
    InstanceLease lease = new InstanceLease(Duration.ofSeconds(2), Duration.ofSeconds(15));
    assertThat(lease.fenceAfter()).isEqualTo(Duration.ofSeconds(13));
    assertThat(lease.mustFence(Duration.ofMillis(12_999))).isFalse();
    assertThat(lease.mustFence(Duration.ofSeconds(13))).isTrue();
    assertThat(lease.mustFence(Duration.ofSeconds(60))).isTrue();
    assertThat(InstanceLease.defaults()).isEqualTo(lease);
  }

  @Test
  void refusesALeaseShorterThanThreeHeartbeatsNamingTheSettings() {
    assertThatThrownBy(() -> new InstanceLease(Duration.ofSeconds(2), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STAGECRAFT_PLANNER_INSTANCE_LEASE")
        .hasMessageContaining("STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT")
        .hasMessageContaining("PT6S");
    assertThatThrownBy(() -> new InstanceLease(Duration.ZERO, Duration.ofSeconds(5)))
        .hasMessageContaining("STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT must be positive");
    assertThat(new InstanceLease(Duration.ofSeconds(1), Duration.ofSeconds(3)).fenceAfter())
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void theFencingMessagesSayWhyAndThatASupervisorRestartsTheInstance() {
    InstanceLease lease = InstanceLease.defaults();
    assertThat(lease.notRenewedMessage("planner-a", Duration.ofSeconds(14), "connection refused"))
        .contains("planner-a could not renew its lease for 14000 ms (lease 15000 ms)")
        .contains("connection refused")
        .contains("supervisor restarts it");
    assertThat(InstanceLease.takenOverMessage("planner-a", "planner-b"))
        .contains("its runs were adopted by instance planner-b");
    assertThat(InstanceLease.takenOverMessage("planner-a", null))
        .contains("registered again by a newer process with the same instance id");
  }
}
