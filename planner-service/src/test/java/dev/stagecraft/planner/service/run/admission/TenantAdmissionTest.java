package dev.stagecraft.planner.service.run.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantAdmissionTest {

  @Test
  void admitsUpToTheCapThenQueuesWithTheReason() {
    TenantAdmission admission = new TenantAdmission(2, Map.of(), 0);
    assertThat(admission.admit("a", "r1")).isEmpty();
    assertThat(admission.admit("a", "r2")).isEmpty();
    assertThat(admission.admit("a", "r3")).contains("waiting: tenant has 2 active runs (cap 2)");
    assertThat(admission.admit("b", "s1")).isEmpty(); // another tenant is not held back
  }

  @Test
  void aFreedSlotGoesToTheTenantsOldestWaitingRun() {
    TenantAdmission admission = new TenantAdmission(1, Map.of(), 0);
    admission.admit("a", "r1");
    admission.admit("a", "r2");
    admission.admit("a", "r3");
    assertThat(admission.release("a", "r1")).containsExactly("r2");
    assertThat(admission.isActive("a", "r2")).isTrue();
    assertThat(admission.release("a", "r3")).isEmpty(); // left the queue: nothing admitted
    assertThat(admission.release("a", "r2")).isEmpty();
    assertThat(admission.admit("a", "r4")).isEmpty();
  }

  @Test
  void underAnOverallLimitFreedSlotsGoRoundRobinByTenant() {
    TenantAdmission admission = new TenantAdmission(10, Map.of(), 2);
    admission.admit("a", "a1");
    admission.admit("a", "a2");
    admission.admit("a", "a3");
    admission.admit("a", "a4");
    admission.admit("b", "b1");
    assertThat(admission.admit("c", "c1")).contains("waiting: 2 runs are active (overall limit 2)");
    assertThat(admission.release("a", "a1")).containsExactly("b1");
    assertThat(admission.release("a", "a2")).containsExactly("c1");
    assertThat(admission.release("b", "b1")).containsExactly("a3");
  }

  @Test
  void perTenantOverrideReplacesTheDefaultCap() {
    TenantAdmission admission = new TenantAdmission(1, Map.of("ci", 3), 0);
    assertThat(admission.capOf("ci")).isEqualTo(3);
    admission.admit("ci", "1");
    admission.admit("ci", "2");
    assertThat(admission.admit("ci", "3")).isEmpty();
    assertThat(admission.admit("ci", "4")).isPresent();
  }

  @Test
  void rejectsCapsBelowOne() {
    assertThatThrownBy(() -> new TenantAdmission(0, Map.of(), 0))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> new TenantAdmission(1, Map.of("x", 0), 0))
        .hasMessageContaining("tenant 'x'");
  }
}
