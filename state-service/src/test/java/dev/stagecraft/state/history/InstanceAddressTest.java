package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InstanceAddressTest {

  @Test
  void parsesPlainAddress() {
    assertThat(InstanceAddress.parse("stateful_provisioning.app"))
        .isEqualTo(new InstanceAddress(null, "managed", "stateful_provisioning", "app", null));
  }

  @Test
  void parsesCountIndex() {
    assertThat(InstanceAddress.parse("stateful_provisioning.app[12]").indexKey()).isEqualTo(12L);
  }

  @Test
  void parsesForEachKeyWithDotsAndQuotes() {
    InstanceAddress a = InstanceAddress.parse("stateful_provisioning.app[\"eu.west \\\"1\\\"\"]");
    assertThat(a.indexKey()).isEqualTo("eu.west \"1\"");
    assertThat(a.resourceAddress()).isEqualTo("stateful_provisioning.app");
  }

  @Test
  void parsesModulePath() {
    InstanceAddress a =
        InstanceAddress.parse("module.net[\"a\"].module.sub.stateful_provisioning.app[0]");
    assertThat(a.module()).isEqualTo("module.net[\"a\"].module.sub");
    assertThat(a.type()).isEqualTo("stateful_provisioning");
    assertThat(a.toString()).isEqualTo("module.net[\"a\"].module.sub.stateful_provisioning.app[0]");
  }

  @Test
  void rejectsMalformedAddresses() {
    assertThatThrownBy(() -> InstanceAddress.parse("app")).hasMessageContaining("expected '.'");
    assertThatThrownBy(() -> InstanceAddress.parse("t.app[")).hasMessageContaining("index");
    assertThatThrownBy(() -> InstanceAddress.parse("t.app[\"x]"))
        .hasMessageContaining("unterminated");
    assertThatThrownBy(() -> InstanceAddress.parse("t.app]")).hasMessageContaining("unexpected");
  }
}
