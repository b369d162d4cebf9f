package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.action.SshConnection.Bastion;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code bastions} connection argument (several hops, nearest first), OpenSSH user certificates
 * ({@code certificate}, {@code bastion_certificate}, a hop's {@code certificate}) and {@code
 * retries}.
 */
class BastionChainResolutionTest {
  @TempDir Path dir;

  private ActionResolution resolve(String connection) {
    String config =
        """
        variable "hop_password" {
          default   = "hop2-secret-pw"
          sensitive = true
        }
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          provisioner "remote-exec" {
            inline = ["hostname"]
            connection {
        %s
            }
          }
        }
        """
            .formatted(connection);
    return AppResolution.resolveApp(config, dir);
  }

  private Diagnostic onlyError(ActionResolution r) {
    assertThat(r.hasErrors()).isTrue();
    assertThat(r.diagnostics().errors()).hasSize(1);
    return r.diagnostics().errors().get(0);
  }

  @Test
  void resolvesEveryHopNearestFirstWithTheConnectionsDefaults() {
    ActionResolution r =
        resolve(
            """
                  host        = "10.0.2.7"
                  user        = "deploy"
                  private_key = "target-key-text"
                  bastions = [
                    { host = "jump1.example.com", port = 2201, user = "ops", host_key = "ssh-ed25519 AAAA1" },
                    { host = "jump2.internal", password = var.hop_password, private_key = "hop2-key-text" },
                  ]
            """);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    SshConnection c = r.steps().get(0).connection();
    assertThat(c.bastions())
        .containsExactly(
            // port, user and credentials default to the connection's, as with bastion_*
            new Bastion(
                "jump1.example.com", 2201, "ops", null, "target-key-text", "ssh-ed25519 AAAA1"),
            new Bastion("jump2.internal", 22, "deploy", "hop2-secret-pw", "hop2-key-text", null));
    // the secrets of each hop are redacted, its host names are not
    assertThat(r.sensitiveValues())
        .contains("hop2-secret-pw", "hop2-key-text", "target-key-text")
        .doesNotContain("jump1.example.com", "jump2.internal", "ops");
  }

  @Test
  void anEmptyListMeansNoHop() {
    ActionResolution r =
        resolve(
            """
                  host     = "10.0.2.7"
                  password = "pw"
                  bastions = []
            """);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    assertThat(r.steps().get(0).connection().bastions()).isEmpty();
  }

  @Test
  void bastionHostAndBastionsTogetherAreAnErrorAtBastions() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host         = "10.0.2.7"
                      password     = "pw"
                      bastion_host = "jump0"
                      bastions     = [{ host = "jump1" }]
                """));
    assertThat(d.summary()).isEqualTo("Conflicting connection arguments");
    assertThat(d.detail()).contains("bastion_host", "bastions", "first entry");
    assertThat(d.range().toString()).isEqualTo("main.tf:13:7");
  }

  @Test
  void aHopWithoutHostIsAnError() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = [{ host = "jump1" }, { user = "ops" }]
                """));
    assertThat(d.summary()).isEqualTo("Missing bastion host");
    assertThat(d.detail()).contains("bastions[1]");
    assertThat(d.range().toString()).isEqualTo("main.tf:12:7");
  }

  @Test
  void anUnknownHopAttributeIsAnErrorNamingTheAcceptedOnes() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = [{ host = "jump1", agent = false }]
                """));
    assertThat(d.summary()).isEqualTo("Unsupported bastion attribute");
    assertThat(d.detail()).contains("bastions[0]", "\"agent\"", "host, port, user");
  }

  @Test
  void aBadPortOrANonObjectHopIsAnError() {
    Diagnostic port =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = [{ host = "jump1", port = 70000 }]
                """));
    assertThat(port.detail()).contains("bastions[0].port", "1 to 65535", "70000");

    Diagnostic notAnObject =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = ["jump1"]
                """));
    assertThat(notAnObject.detail()).contains("bastions[0] must be an object");

    Diagnostic notAList =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = "jump1"
                """));
    assertThat(notAList.detail()).contains("must be a list of objects");
  }

  @Test
  void retriesMarksAStepSafeToRunAgainAndMustBeAWholeNumber() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          provisioner "remote-exec" {
            inline  = ["hostname"]
            retries = %s
            connection {
              host     = "10.0.2.7"
              password = "pw"
            }
          }
        }
        """;
    ActionResolution ok = resolvePlain(config.formatted("3"));
    assertThat(ok.hasErrors()).as(ok.renderDiagnostics()).isFalse();
    assertThat(ok.steps().get(0).retries()).isEqualTo(3);

    Diagnostic negative = onlyError(resolvePlain(config.formatted("-1")));
    assertThat(negative.summary()).isEqualTo("Invalid argument value");
    assertThat(negative.detail()).contains("\"retries\"", "whole number from 0");
    assertThat(negative.range().toString()).isEqualTo("main.tf:5:5");
  }

  private static final String CERT = "ssh-ed25519-cert-v01@openssh.com AAAAtarget-cert deploy";
  private static final String HOP_CERT = "ssh-ed25519-cert-v01@openssh.com AAAAhop-cert ops";

  /**
   * A connection to 10.0.2.7 with the private key {@code target-key-text}, the certificate {@link
   * #CERT} unless {@code certificate} is false, and the {@code more} arguments; asserts no errors.
   */
  private ActionResolution resolveWithKey(boolean certificate, String more) {
    ActionResolution r =
        resolve(
            "host = \"10.0.2.7\"\nprivate_key = \"target-key-text\"\n"
                + (certificate ? "certificate = \"" + CERT + "\"\n" : "")
                + more);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    return r;
  }

  @Test
  void theCertificateGoesWithThePrivateKeyAndIsNotSecret() {
    ActionResolution r = resolveWithKey(true, "");
    SshConnection c = r.steps().get(0).connection();
    assertThat(c.privateKey()).isEqualTo("target-key-text");
    assertThat(c.certificate()).isEqualTo(CERT);
    assertThat(r.sensitiveValues()).contains("target-key-text").doesNotContain(CERT);
  }

  @Test
  void bastionCertificateGoesToTheBastionHop() {
    SshConnection c =
        resolveWithKey(
                true,
                """
                bastion_host        = "jump1"
                bastion_private_key = "hop-key-text"
                bastion_certificate = "%s"
                """
                    .formatted(HOP_CERT))
            .steps()
            .get(0)
            .connection();
    assertThat(c.certificate()).isEqualTo(CERT);
    assertThat(c.bastions())
        .containsExactly(
            new Bastion("jump1", 22, "root", null, "hop-key-text", HOP_CERT, null, List.of()));
  }

  @Test
  void aBastionInheritsTheConnectionsCertificateOnlyWithItsKey() {
    Bastion sameKey =
        resolveWithKey(true, "bastion_host = \"jump1\"")
            .steps()
            .get(0)
            .connection()
            .bastions()
            .getFirst();
    assertThat(sameKey.privateKey()).isEqualTo("target-key-text");
    assertThat(sameKey.certificate()).isEqualTo(CERT);

    Bastion ownKey =
        resolveWithKey(true, "bastion_host = \"jump1\"\nbastion_private_key = \"hop-key-text\"")
            .steps()
            .get(0)
            .connection()
            .bastions()
            .getFirst();
    assertThat(ownKey.privateKey()).isEqualTo("hop-key-text");
    assertThat(ownKey.certificate()).isNull();
  }

  @Test
  void eachHopOfBastionsTakesItsOwnCertificateOrTheConnectionsWithItsKey() {
    ActionResolution r =
        resolveWithKey(
            true,
            """
            bastions = [
              { host = "jump1", certificate = "%s" },
              { host = "jump2", private_key = "hop2-key-text" },
              { host = "jump3" },
            ]
            """
                .formatted(HOP_CERT));
    assertThat(r.steps().get(0).connection().bastions())
        .extracting(Bastion::host, Bastion::privateKey, Bastion::certificate)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("jump1", "target-key-text", HOP_CERT),
            org.assertj.core.groups.Tuple.tuple("jump2", "hop2-key-text", null),
            org.assertj.core.groups.Tuple.tuple("jump3", "target-key-text", CERT));
  }

  @Test
  void aPathInsteadOfTheCertificateTextIsAnErrorAtTheArgument() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host        = "10.0.2.7"
                      private_key = "target-key-text"
                      certificate = "/home/deploy/.ssh/id_ed25519-cert.pub"
                """));
    assertThat(d.summary()).isEqualTo("Invalid argument value");
    assertThat(d.detail())
        .contains("certificate must be the text of an OpenSSH user certificate", "file(")
        .contains("\"/home/deploy/.ssh/id_ed25519-cert.pub\"");
    assertThat(d.range().toString()).isEqualTo("main.tf:12:7");
  }

  @Test
  void aCertificateWithoutItsPrivateKeyIsAnError() {
    Diagnostic target =
        onlyError(
            resolve("host = \"10.0.2.7\"\npassword = \"pw\"\ncertificate = \"" + CERT + "\""));
    assertThat(target.summary()).isEqualTo("Missing private key");
    assertThat(target.detail()).contains("certificate needs the private key", "private_key");

    Diagnostic hop =
        onlyError(
            resolve(
                "host = \"10.0.2.7\"\npassword = \"pw\"\n"
                    + "bastions = [{ host = \"jump1\", certificate = \""
                    + HOP_CERT
                    + "\" }]"));
    assertThat(hop.summary()).isEqualTo("Missing private key");
    assertThat(hop.detail()).contains("bastions[0].certificate", "bastions[0].private_key");
  }

  @Test
  void bastionCertificateWithoutBastionHostIsOnlyAWarning() {
    ActionResolution r = resolveWithKey(false, "bastion_certificate = \"" + HOP_CERT + "\"");
    assertThat(r.diagnostics().list())
        .extracting(Diagnostic::summary)
        .containsExactly("Bastion argument without bastion_host");
    assertThat(r.steps().get(0).connection().bastions()).isEmpty();
  }

  private ActionResolution resolvePlain(String config) {
    return AppResolution.resolveApp(config, dir);
  }
}
