package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A remote command asked to stop before its process group was read (its standard output reached the
 * step's output limit before the marker on its standard error was read) is still stopped once the
 * group is known: before, the stop was lost and the executor drained `yes | cat` for ever.
 */
class ProcessGroupTest {

  @Test
  void aStopAskedBeforeTheGroupIsKnownIsCarriedOutWhenItIs() {
    SshjRemoteSession.ProcessGroup group = new SshjRemoteSession.ProcessGroup();
    assertThat(group.stop()).as("nothing to kill yet").isNull();
    assertThat(group.known("4242")).as("the reader of the marker must stop it now").isTrue();
    assertThat(group.stop()).isEqualTo("4242");
  }

  @Test
  void aGroupKnownFirstIsKilledWhenAStopIsAsked() {
    SshjRemoteSession.ProcessGroup group = new SshjRemoteSession.ProcessGroup();
    assertThat(group.known("77")).isFalse();
    assertThat(group.stop()).isEqualTo("77");
  }
}
