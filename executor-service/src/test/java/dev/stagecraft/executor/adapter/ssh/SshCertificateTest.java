package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.executor.step.RemoteConnector.AuthenticationFailedException;
import dev.stagecraft.executor.step.RemoteConnector.PermanentConnectionException;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OpenSSH user certificates against a real sshd that trusts a CA ({@code TrustedUserCAKeys}) and
 * does not authorize the certified key on its own: a login succeeds only through the certificate.
 * Refusals use a connection timeout of 10 minutes: they must come back as permanent failures at
 * once (the wait below gives up after one minute), with a message that says why.
 */
class SshCertificateTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  private final SshjRemoteConnector connector = new SshjRemoteConnector();
  private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  private static SshConnection withCertificate(String key, String certificate) throws IOException {
    return new SshConnection(
        SSHD.host(), SSHD.port(), SSHD.user(), null, key, certificate, SSHD.hostKey(), 600, null);
  }

  private Throwable failureOf(SshConnection connection) {
    return ConnectCalls.failureOf(
        ConnectCalls.connectAsync(connector, connection, n -> {}, threads));
  }

  /** A hop that logs in with {@link OpenSshServer#certifiedKey} and {@code certificate}. */
  private static SshConnection.Bastion certifiedHop(String certificate) throws IOException {
    return new SshConnection.Bastion(
        SSHD.host(),
        SSHD.port(),
        SSHD.user(),
        null,
        SSHD.certifiedKey(),
        certificate,
        SSHD.hostKey(),
        List.of());
  }

  @Test
  void logsInWithAKeyAndItsCertificateSignedByTheTrustedCa() throws Exception {
    String certificate = SSHD.userCertificate("deploy-42", SSHD.user(), "-5m:+1h");
    assertThat(certificate).startsWith("ssh-ed25519-cert-v01@openssh.com AAAA");

    try (RemoteSession session =
        connector.connect(withCertificate(SSHD.certifiedKey(), certificate), n -> {})) {
      assertThat(session.exec("echo certified", recording(), null)).isZero();
    }

    assertThat(lines).containsExactly("stdout: certified");
    assertThat(SSHD.log())
        .contains("Accepted publickey for " + SSHD.user())
        .contains("ID deploy-42");
  }

  @Test
  void aCertificateWithoutTimeBoundsIsAccepted() throws Exception {
    String certificate = SSHD.userCertificate("forever", SSHD.user(), "always:forever");

    try (RemoteSession session =
        connector.connect(withCertificate(SSHD.certifiedKey(), certificate), n -> {})) {
      assertThat(session.exec("true", recording(), null)).isZero();
    }
  }

  @Test
  void theCertifiedKeyAloneIsRefused() throws Exception {
    assertThat(failureOf(withCertificate(SSHD.certifiedKey(), null)))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining("(tried publickey)");
  }

  @Test
  void refusesACertificateForAnotherPrincipalAtOnceNamingItsPrincipals() throws Exception {
    String certificate = SSHD.userCertificate("for-nobody", "nobody,ops", "-5m:+1h");

    assertThat(failureOf(withCertificate(SSHD.certifiedKey(), certificate)))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining("(tried publickey with certificate)")
        .hasMessageContaining(
            "certificate \"for-nobody\" lists the principals nobody, ops, not the user "
                + SSHD.user())
        .hasMessageContaining("ssh-keygen -n " + SSHD.user())
        .hasMessageContaining("not retried");
    assertThat(SSHD.log()).contains("name is not a listed principal");
  }

  @Test
  void refusesAnExpiredCertificateAtOnceSayingWhenItExpired() throws Exception {
    String certificate = SSHD.userCertificate("old", SSHD.user(), "20200101:20200102");

    assertThat(failureOf(withCertificate(SSHD.certifiedKey(), certificate)))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining("certificate \"old\" expired at 2020-01-0")
        .hasMessageContaining("issue a new one");
    assertThat(SSHD.log()).contains("Certificate invalid: expired");
  }

  @Test
  void refusesACertificateThatIsNotValidYetSayingFromWhen() throws Exception {
    String certificate = SSHD.userCertificate("future", SSHD.user(), "+1d:+2d");

    assertThat(failureOf(withCertificate(SSHD.certifiedKey(), certificate)))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining("certificate \"future\" is not valid before ");
    assertThat(SSHD.log()).contains("Certificate invalid: not yet valid");
  }

  @Test
  void aCertificateFromAnUntrustedCaIsRefusedWithAHintAboutTheCa() throws Exception {
    String certificate = SSHD.untrustedCertificate("rogue", SSHD.user());

    assertThat(failureOf(withCertificate(SSHD.certifiedKey(), certificate)))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageContaining("certificate \"rogue\" looks valid for " + SSHD.user())
        .hasMessageContaining("TrustedUserCAKeys");
  }

  @Test
  void aCertificateForAnotherKeyFailsBeforeAnythingIsOffered() throws Exception {
    String certificate = SSHD.userCertificate("mismatch", SSHD.user(), "-5m:+1h");

    assertThat(failureOf(withCertificate(SSHD.ed25519Key(), certificate)))
        .isInstanceOf(PermanentConnectionException.class)
        .hasMessageContaining("certificate \"mismatch\" was issued for the key SHA256:")
        .hasMessageContaining("not for private_key");
  }

  @Test
  void textThatIsNotACertificateIsAClearPermanentError() throws Exception {
    assertThat(failureOf(withCertificate(SSHD.certifiedKey(), SSHD.otherHostKey())))
        .isInstanceOf(PermanentConnectionException.class)
        .hasMessageContaining("certificate could not be read")
        .hasMessageContaining("ssh-ed25519-cert-v01@openssh.com AAAA...");
  }

  @Test
  void reachesTheTargetThroughABastionThatTakesOnlyTheCertificate() throws Exception {
    String certificate = SSHD.userCertificate("hop", SSHD.user(), "-5m:+1h");
    SshConnection.Bastion hop = certifiedHop(certificate);
    SshConnection target = withCertificate(SSHD.ed25519Key(), null).withBastions(List.of(hop));

    try (RemoteSession session = connector.connect(target, n -> {})) {
      assertThat(session.exec("echo via-certified-bastion", recording(), null)).isZero();
    }

    assertThat(lines).containsExactly("stdout: via-certified-bastion");
    assertThat(SSHD.log()).contains("ID hop");
  }

  @Test
  void aBastionCertificateForAnotherPrincipalNamesTheBastion() throws Exception {
    String certificate = SSHD.userCertificate("hop-nobody", "nobody", "-5m:+1h");
    SshConnection.Bastion hop = certifiedHop(certificate);

    assertThat(failureOf(withCertificate(SSHD.ed25519Key(), null).withBastions(List.of(hop))))
        .isInstanceOf(AuthenticationFailedException.class)
        .hasMessageStartingWith("bastion: authentication failed")
        .hasMessageContaining("lists the principals nobody");
  }

  private RemoteSession.LineSink recording() {
    return (stream, line) -> lines.add(stream.wireName() + ": " + line);
  }
}
