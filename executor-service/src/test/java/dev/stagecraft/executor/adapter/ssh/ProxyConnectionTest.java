package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.step.RemoteConnector.PermanentConnectionException;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.action.SshConnection.Bastion;
import dev.stagecraft.schemas.action.SshConnection.Proxy;
import dev.stagecraft.sshtestkit.ConnectProxy;
import dev.stagecraft.sshtestkit.ConnectProxy.Kind;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SSH connections through a real HTTP CONNECT or SOCKS5 proxy ({@link ConnectProxy}, relaying real
 * TCP) to real OpenSSH servers, as Terraform's {@code proxy_*}: the proxy is what reaches the first
 * hop — the host, or the bastion when there is one. The proxy counts the tunnels it opened and the
 * {@code host:port} each one asked for, so the tests see that the connection went through it.
 */
class ProxyConnectionTest {
  private static final String BASTION_ADDRESS = "127.0.0.31";
  private static final String TARGET_ADDRESS = "127.0.0.32";
  private static final String PROXY_PASSWORD = "pr0xy-s3cret-pw";

  @RegisterExtension
  @Order(1)
  static final OpenSshServer TARGET = new OpenSshServer(TARGET_ADDRESS, List::of);

  @RegisterExtension
  @Order(2)
  static final OpenSshServer BASTION =
      new OpenSshServer(
          BASTION_ADDRESS,
          () ->
              List.of(
                  "LogLevel DEBUG1",
                  "AllowTcpForwarding local",
                  "PermitOpen " + TARGET_ADDRESS + ":" + TARGET.port()));

  private final SshjRemoteConnector connector = new SshjRemoteConnector();
  private final List<String> notices = Collections.synchronizedList(new ArrayList<>());
  private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  private static SshConnection toTarget(Proxy proxy) throws IOException {
    return new SshConnection(
            TARGET.host(),
            TARGET.port(),
            TARGET.user(),
            null,
            TARGET.ed25519Key(),
            null,
            TARGET.hostKey(),
            30,
            null)
        .withProxy(proxy);
  }

  private static Proxy via(ConnectProxy proxy, String scheme, String user, String password) {
    return new Proxy(scheme, proxy.host(), proxy.port(), user, password);
  }

  /** Runs a command that prints the address and port of the sshd that ran it. */
  private void runsOnTheTarget(SshConnection connection) throws Exception {
    try (RemoteSession session = connector.connect(connection, notices::add)) {
      int exit =
          session.exec(
              "echo \"server=$(echo $SSH_CONNECTION | cut -d' ' -f3-4)\"",
              (stream, line) -> lines.add(stream.wireName() + ": " + line),
              null);
      assertThat(exit).isZero();
    }
    assertThat(lines).containsExactly("stdout: server=" + TARGET_ADDRESS + " " + TARGET.port());
  }

  @Test
  void connectsToTheHostThroughAnHttpConnectProxy() throws Exception {
    try (ConnectProxy proxy = ConnectProxy.http()) {
      runsOnTheTarget(toTarget(via(proxy, "http", null, null)));

      assertThat(proxy.relayed()).isEqualTo(1);
      assertThat(proxy.targets()).containsExactly(TARGET_ADDRESS + ":" + TARGET.port());
    }
  }

  @Test
  void httpsIsTheSameConnectProxyAsInTerraform() throws Exception {
    try (ConnectProxy proxy = ConnectProxy.http()) {
      runsOnTheTarget(toTarget(via(proxy, "https", null, null)));

      assertThat(proxy.relayed()).isEqualTo(1);
    }
  }

  @Test
  void connectsToTheHostThroughAnAuthenticatingSocks5Proxy() throws Exception {
    try (ConnectProxy proxy =
        ConnectProxy.withCredentials(Kind.SOCKS5, "deployer", PROXY_PASSWORD)) {
      runsOnTheTarget(toTarget(via(proxy, "socks5", "deployer", PROXY_PASSWORD)));

      assertThat(proxy.relayed()).isEqualTo(1);
      assertThat(proxy.refused()).isZero();
      assertThat(proxy.targets()).containsExactly(TARGET_ADDRESS + ":" + TARGET.port());
    }
  }

  @Test
  void connectsThroughAnAuthenticatingHttpProxy() throws Exception {
    try (ConnectProxy proxy = ConnectProxy.withCredentials(Kind.HTTP, "deployer", PROXY_PASSWORD)) {
      runsOnTheTarget(toTarget(via(proxy, "http", "deployer", PROXY_PASSWORD)));

      assertThat(proxy.relayed()).isEqualTo(1);
      assertThat(proxy.refused()).isZero();
    }
  }

  @Test
  void theProxyReachesTheBastionAndTheBastionTheHost() throws Exception {
    try (ConnectProxy proxy = ConnectProxy.socks5()) {
      SshConnection chain =
          toTarget(via(proxy, "socks5", null, null))
              .withBastions(
                  List.of(
                      new Bastion(
                          BASTION.host(),
                          BASTION.port(),
                          BASTION.user(),
                          null,
                          BASTION.ed25519Key(),
                          BASTION.hostKey())));

      runsOnTheTarget(chain);

      // one tunnel, to the bastion: the host was reached from the bastion, not through the proxy
      assertThat(proxy.targets()).containsExactly(BASTION_ADDRESS + ":" + BASTION.port());
      assertThat(proxy.relayed()).isEqualTo(1);
      assertThat(BASTION.log()).contains("target " + TARGET_ADDRESS + " port " + TARGET.port());
    }
  }

  @Test
  void wrongHttpProxyCredentialsFailAtOnceWithoutTheSecret() throws Exception {
    try (ConnectProxy proxy = ConnectProxy.withCredentials(Kind.HTTP, "deployer", PROXY_PASSWORD)) {
      Throwable failure =
          ConnectCalls.failureOf(
              ConnectCalls.connectAsync(
                  connector,
                  toTarget(via(proxy, "http", "deployer", "wrong-password-42")),
                  notices::add,
                  threads));

      assertThat(failure)
          .isInstanceOf(PermanentConnectionException.class)
          .hasMessageContaining("407")
          .hasMessageContaining("for user deployer: check proxy_user_name/proxy_user_password")
          .hasMessageNotContaining("wrong-password-42");
      // refused once and not retried, although the connection timeout (30 s) had time left
      assertThat(proxy.refused()).isEqualTo(1);
      assertThat(proxy.relayed()).isZero();
    }
  }

  @Test
  void anHttpProxyThatWantsCredentialsSaysWhichArgumentsToSet() throws Exception {
    try (ConnectProxy proxy = ConnectProxy.withCredentials(Kind.HTTP, "deployer", PROXY_PASSWORD)) {
      Throwable failure =
          ConnectCalls.failureOf(
              ConnectCalls.connectAsync(
                  connector, toTarget(via(proxy, "http", null, null)), notices::add, threads));

      assertThat(failure)
          .isInstanceOf(PermanentConnectionException.class)
          .hasMessageContaining("set proxy_user_name and proxy_user_password");
    }
  }

  @Test
  void wrongSocks5CredentialsFailAtOnceWithoutTheSecret() throws Exception {
    try (ConnectProxy proxy =
        ConnectProxy.withCredentials(Kind.SOCKS5, "deployer", PROXY_PASSWORD)) {
      Throwable failure =
          ConnectCalls.failureOf(
              ConnectCalls.connectAsync(
                  connector,
                  toTarget(via(proxy, "socks5", "deployer", "wrong-password-42")),
                  notices::add,
                  threads));

      assertThat(failure)
          .isInstanceOf(PermanentConnectionException.class)
          .hasMessageContaining("rejected user deployer")
          .hasMessageNotContaining("wrong-password-42");
      assertThat(proxy.refused()).isEqualTo(1);
      assertThat(proxy.relayed()).isZero();
    }
  }

  @Test
  void aProxyThatIsDownIsRetriedUntilTheTimeoutAndNamed() throws Exception {
    int port;
    try (ConnectProxy gone = ConnectProxy.http()) {
      port = gone.port();
    }
    SshConnection connection =
        new SshConnection(
                TARGET.host(),
                TARGET.port(),
                TARGET.user(),
                null,
                TARGET.ed25519Key(),
                null,
                TARGET.hostKey(),
                2,
                null)
            .withProxy(new Proxy("http", "127.0.0.1", port, null, null));

    Throwable failure =
        ConnectCalls.failureOf(
            ConnectCalls.connectAsync(connector, connection, notices::add, threads));

    assertThat(failure)
        .isNotInstanceOf(PermanentConnectionException.class)
        .hasMessageContaining("through the proxy http://127.0.0.1:" + port + " within 2 s")
        .hasMessageContaining("cannot reach the proxy http://127.0.0.1:" + port);
  }
}
