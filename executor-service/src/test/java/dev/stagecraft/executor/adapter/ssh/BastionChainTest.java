package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.executor.step.RemoteConnector.AuthenticationFailedException;
import dev.stagecraft.executor.step.RemoteConnector.HostKeyMismatchException;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.action.SshConnection.Bastion;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.io.IOException;
import java.time.Duration;
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
 * A two-hop bastion chain of three real OpenSSH sshd instances on distinct loopback addresses. The
 * path is enforced by the servers themselves: bastion 1 may only forward to bastion 2 ({@code
 * PermitOpen}), bastion 2 only to the target, and the target listens only on its own address. So a
 * command that runs on the target went through both hops, in order.
 */
class BastionChainTest {
  private static final String BASTION_1_ADDRESS = "127.0.0.11";
  private static final String BASTION_2_ADDRESS = "127.0.0.12";
  private static final String TARGET_ADDRESS = "127.0.0.13";

  // Registered (and started) in this order, so each bastion can name the port of the next hop.
  @RegisterExtension
  @Order(1)
  static final OpenSshServer TARGET = new OpenSshServer(TARGET_ADDRESS, List::of);

  @RegisterExtension
  @Order(2)
  static final OpenSshServer BASTION_2 =
      new OpenSshServer(
          BASTION_2_ADDRESS,
          () ->
              List.of(
                  "LogLevel DEBUG1",
                  "AllowTcpForwarding local",
                  "PermitOpen " + TARGET_ADDRESS + ":" + TARGET.port()));

  @RegisterExtension
  @Order(3)
  static final OpenSshServer BASTION_1 =
      new OpenSshServer(
          BASTION_1_ADDRESS,
          () ->
              List.of(
                  "LogLevel DEBUG1",
                  "AllowTcpForwarding local",
                  "PermitOpen " + BASTION_2_ADDRESS + ":" + BASTION_2.port()));

  private final SshjRemoteConnector connector = new SshjRemoteConnector();
  private final List<String> notices = Collections.synchronizedList(new ArrayList<>());
  private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  private static Bastion hop(OpenSshServer server, String key, String hostKey) {
    return new Bastion(server.host(), server.port(), server.user(), null, key, hostKey);
  }

  private static SshConnection toTarget(int timeoutSeconds, List<Bastion> hops) throws IOException {
    return new SshConnection(
        TARGET.host(),
        TARGET.port(),
        TARGET.user(),
        null,
        TARGET.ed25519Key(),
        null,
        TARGET.hostKey(),
        timeoutSeconds,
        hops);
  }

  private Throwable failureOf(SshConnection connection) {
    return ConnectCalls.failureOf(
        ConnectCalls.connectAsync(connector, connection, notices::add, threads));
  }

  @Test
  void runsTheCommandOnTheTargetThroughBothBastionsInOrder() throws Exception {
    SshConnection chain =
        toTarget(
            30,
            List.of(
                hop(BASTION_1, BASTION_1.ed25519Key(), BASTION_1.hostKey()),
                hop(BASTION_2, BASTION_2.rsaPemKey(), BASTION_2.hostKey())));

    try (RemoteSession session = connector.connect(chain, notices::add)) {
      int exit =
          session.exec(
              "echo \"server=$(echo $SSH_CONNECTION | cut -d' ' -f3-4)\"",
              (stream, line) -> lines.add(stream.wireName() + ": " + line),
              null);

      assertThat(exit).isZero();
      // the sshd that ran it is the target's: it listens on no other address
      assertThat(lines).containsExactly("stdout: server=" + TARGET_ADDRESS + " " + TARGET.port());
    }
    // each bastion forwarded exactly the next hop
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(BASTION_1.log())
                  .contains("target " + BASTION_2_ADDRESS + " port " + BASTION_2.port());
              assertThat(BASTION_2.log())
                  .contains("target " + TARGET_ADDRESS + " port " + TARGET.port());
            });
    assertThat(notices).isEmpty();
  }

  @Test
  void theFirstBastionCannotReachTheTargetDirectly() throws Exception {
    // Proves the restriction that makes the test above meaningful: one hop is not enough.
    SshConnection oneHop =
        toTarget(3, List.of(hop(BASTION_1, BASTION_1.ed25519Key(), BASTION_1.hostKey())));

    assertThat(failureOf(oneHop)).hasMessageContaining("within 3 s: timeout - last error:");
    assertThat(BASTION_1.log())
        .contains(
            "to connect to host " + TARGET_ADDRESS + " port " + TARGET.port(),
            "the request was denied");
  }

  @Test
  void checksTheHostKeyOfEveryHop() throws Exception {
    SshConnection wrongSecondHop =
        toTarget(
            600,
            List.of(
                hop(BASTION_1, BASTION_1.ed25519Key(), BASTION_1.hostKey()),
                // bastion 1's key pinned for bastion 2
                hop(BASTION_2, BASTION_2.ed25519Key(), BASTION_1.hostKey())));

    assertThat(failureOf(wrongSecondHop))
        .isInstanceOf(HostKeyMismatchException.class)
        .hasMessageContaining(BASTION_2_ADDRESS + ":" + BASTION_2.port());
  }

  @Test
  void aRejectedKeyAtTheSecondBastionFailsAtOnceNamingThatHop() throws Exception {
    SshConnection wrongKey =
        toTarget(
            600,
            List.of(
                hop(BASTION_1, BASTION_1.ed25519Key(), BASTION_1.hostKey()),
                hop(BASTION_2, BASTION_2.unauthorizedKey(), BASTION_2.hostKey())));

    assertThat(failureOf(wrongKey))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining(
            "bastion 2: authentication failed for "
                + BASTION_2.user()
                + "@"
                + BASTION_2_ADDRESS
                + ":"
                + BASTION_2.port()
                + " (tried publickey)")
        .hasMessageContaining("check private_key/password/user of the bastion 2");
  }
}
