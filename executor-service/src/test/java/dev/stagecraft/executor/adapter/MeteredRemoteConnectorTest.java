package dev.stagecraft.executor.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.executor.step.RemoteConnector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** SSH connection attempts are counted by outcome, and failures by the failure's class. */
class MeteredRemoteConnectorTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @Test
  void countsOpenedAndFailedAttemptsAndFailuresByClass() throws Exception {
    RemoteConnector opens = (connection, notices) -> null;
    RemoteConnector refuses =
        (connection, notices) -> {
          throw new RemoteConnector.PermanentConnectionException("authentication failed");
        };

    new MeteredRemoteConnector(opens, meters).connect(null, n -> {});
    new MeteredRemoteConnector(opens, meters).connect(null, n -> {});
    assertThatThrownBy(() -> new MeteredRemoteConnector(refuses, meters).connect(null, n -> {}))
        .isInstanceOf(RemoteConnector.PermanentConnectionException.class);

    assertThat(count("stagecraft.ssh.connections", "outcome", "opened")).isEqualTo(2.0);
    assertThat(count("stagecraft.ssh.connections", "outcome", "failed")).isEqualTo(1.0);
    assertThat(count("stagecraft.ssh.connection.failures", "class", "PermanentConnectionException"))
        .isEqualTo(1.0);
  }

  private double count(String name, String tag, String value) {
    return meters.get(name).tag(tag, value).counter().count();
  }
}
