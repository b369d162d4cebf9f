package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.ActionResult.Outcome;
import dev.stagecraft.executor.step.Fixtures.RecordingSink;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.ConnectProxy;
import dev.stagecraft.sshtestkit.ConnectProxy.Kind;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A remote-exec step through an authenticating SOCKS5 proxy, run by the {@link ActionRunner}
 * against a real OpenSSH sshd: the log says which proxy and user were used, never the proxy
 * password, and the password is redacted from the step's output like any sensitive value.
 */
class RemoteStepThroughProxyTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();
  private static final String PROXY_PASSWORD = "socks-pw-7f3a9c";

  @TempDir Path dir;
  private final RecordingSink sink = new RecordingSink();

  @Test
  void runsThroughTheProxyAndNeverShowsItsPassword() throws Exception {
    try (ConnectProxy proxy =
        ConnectProxy.withCredentials(Kind.SOCKS5, "deployer", PROXY_PASSWORD)) {
      SshConnection connection =
          new SshConnection(
                  SSHD.host(),
                  SSHD.port(),
                  SSHD.user(),
                  null,
                  SSHD.ed25519Key(),
                  null,
                  SSHD.hostKey(),
                  30,
                  null)
              .withProxy(
                  new SshConnection.Proxy(
                      "socks5", proxy.host(), proxy.port(), "deployer", PROXY_PASSWORD));
      ActionDispatched action =
          new ActionDispatched(
              "run-1",
              "action-1",
              "stateful_provisioning.app",
              "stateful_provisioning",
              "create",
              Map.of(),
              List.of(),
              List.of(
                  Fixtures.remoteExec(
                      connection, List.of("echo hello", "echo leak=" + PROXY_PASSWORD), 0, 0)),
              7,
              // the planner lists proxy_user_password among the action's sensitive values
              List.of(PROXY_PASSWORD));

      ActionResult result = new ActionRunner(dir, new SshjRemoteConnector()).run(action, sink);

      assertThat(result.outcome()).as(result.error()).isEqualTo(Outcome.SUCCEEDED);
      assertThat(proxy.relayed()).isEqualTo(1);
      assertThat(sink.of(LogStream.SYSTEM))
          .contains(
              "  Proxy: socks5://"
                  + proxy.host()
                  + ":"
                  + proxy.port()
                  + " (user deployer, password: true)");
      assertThat(sink.of(LogStream.STDOUT)).startsWith("hello").hasSize(2);
      assertThat(sink.lines).noneMatch(line -> line.contains(PROXY_PASSWORD));
    }
  }
}
