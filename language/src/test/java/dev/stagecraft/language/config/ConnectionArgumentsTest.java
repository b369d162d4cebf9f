package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Terraform's whole {@code connection} schema is accepted: what Stagecraft uses over SSH silently,
 * the WinRM-only and SSH-agent arguments with a warning at the argument, a {@code target_platform}
 * other than unix, an unknown {@code proxy_scheme} and a type other than ssh as errors at the
 * value. Null means unset and is never reported.
 */
class ConnectionArgumentsTest {

  private static List<Diagnostic> diagnostics(String connectionBody) {
    return ConfigLoader.load(Map.of("main.tf", resource(connectionBody))).diagnostics().list();
  }

  /** The connection block's body starts on line 6, indented by 4. */
  private static String resource(String connectionBody) {
    return """
        resource "stateful_provisioning" "app" {
          state_key = "x"
          provisioner "remote-exec" {
            inline = ["true"]
            connection {
        %s
            }
          }
        }
        """
        .formatted(connectionBody.strip().indent(4).stripTrailing());
  }

  private static String at(Diagnostic d) {
    return d.range().toString();
  }

  @Test
  void acceptsEverySshArgumentTerraformKnowsWithoutADiagnostic() {
    List<Diagnostic> d =
        diagnostics(
            """
            type                = "ssh"
            host                = "10.0.0.5"
            port                = 22
            user                = "deploy"
            password            = "pw"
            private_key         = "key"
            certificate         = "cert"
            host_key            = "ssh-ed25519 AAAA"
            timeout             = "1m"
            script_path         = "/var/tmp/deploy_%RAND%.sh"
            target_platform     = "unix"
            agent               = false
            proxy_scheme        = "socks5"
            proxy_host          = "proxy.example"
            proxy_port          = 1080
            proxy_user_name     = "me"
            proxy_user_password = "secret"
            bastion_host        = "jump"
            bastion_port        = 22
            bastion_user        = "ops"
            bastion_password    = "pw2"
            bastion_private_key = "key2"
            bastion_certificate = "cert2"
            bastion_host_key    = "ssh-ed25519 BBBB"
            """);

    assertThat(d).isEmpty();
  }

  @Test
  void winRmOnlyArgumentsAreIgnoredWithAWarningAtEach() {
    List<Diagnostic> d =
        diagnostics(
            """
            host     = "h"
            https    = true
            insecure = true
            use_ntlm = false
            cacert   = "-----BEGIN CERTIFICATE-----"
            """);

    assertThat(d).noneMatch(Diagnostic::isError).hasSize(4);
    assertThat(d).extracting(Diagnostic::summary).containsOnly("Ignored connection argument");
    assertThat(d)
        .extracting(ConnectionArgumentsTest::at)
        .containsExactly("main.tf:7:5", "main.tf:8:5", "main.tf:9:5", "main.tf:10:5");
    assertThat(d.get(0).detail())
        .isEqualTo(
            "\"https\" is an argument of WinRM connections; Stagecraft connects over SSH only, so"
                + " it is ignored. Remove it from the connection block.");
    assertThat(d.get(3).detail()).startsWith("\"cacert\" is an argument of WinRM connections");
  }

  @Test
  void agentIdentityAndAgentTrueAreIgnoredWithAWarning() {
    List<Diagnostic> d =
        diagnostics(
            """
            host           = "h"
            agent          = true
            agent_identity = "deploy@laptop"
            """);

    assertThat(d).noneMatch(Diagnostic::isError).hasSize(2);
    assertThat(at(d.get(0))).isEqualTo("main.tf:7:5");
    assertThat(d.get(0).detail())
        .startsWith("agent = true asks for an SSH agent, and the Stagecraft executor has none")
        .contains("private_key (or key_file), certificate or password");
    assertThat(at(d.get(1))).isEqualTo("main.tf:8:5");
    assertThat(d.get(1).detail())
        .startsWith("\"agent_identity\" picks a key of an SSH agent")
        .contains("no SSH agent");
  }

  @Test
  void nullIsUnsetAndNeverReported() {
    List<Diagnostic> d =
        diagnostics(
            """
            host                = "h"
            https               = null
            insecure            = null
            use_ntlm            = null
            cacert              = null
            agent               = null
            agent_identity      = null
            target_platform     = null
            script_path         = null
            proxy_scheme        = null
            proxy_host          = null
            proxy_port          = null
            proxy_user_name     = null
            proxy_user_password = null
            bastion_certificate = null
            """);

    assertThat(d).isEmpty();
  }

  @Test
  void aTargetPlatformOtherThanUnixIsAnErrorAtItsValue() {
    List<Diagnostic> d =
        diagnostics(
            """
            host            = "h"
            target_platform = "windows"
            """);

    assertThat(d).hasSize(1);
    assertThat(d.get(0).isError()).isTrue();
    assertThat(d.get(0).summary()).isEqualTo("Unsupported target platform");
    assertThat(at(d.get(0))).isEqualTo("main.tf:7:23");
    assertThat(d.get(0).detail())
        .isEqualTo(
            "target_platform = \"windows\" is not supported: Stagecraft runs provisioners over SSH"
                + " on unix targets only. Remove target_platform or set target_platform ="
                + " \"unix\".");
  }

  @Test
  void anUnknownProxySchemeIsAnErrorAtItsValue() {
    List<Diagnostic> d =
        diagnostics(
            """
            host         = "h"
            proxy_host   = "p"
            proxy_scheme = "socks4"
            """);

    assertThat(d).hasSize(1);
    assertThat(d.get(0).summary()).isEqualTo("Unsupported proxy scheme");
    assertThat(at(d.get(0))).isEqualTo("main.tf:8:20");
    assertThat(d.get(0).detail())
        .contains("\"socks4\"")
        .contains("\"http\" or \"https\" (an HTTP CONNECT proxy, as in Terraform) or \"socks5\"");
  }

  @Test
  void aWinRmConnectionGetsItsTypeErrorAndNothingElse() {
    List<Diagnostic> d =
        diagnostics(
            """
            type            = "winrm"
            host            = "h"
            https           = true
            use_ntlm        = true
            agent_identity  = "x"
            target_platform = "windows"
            """);

    assertThat(d).hasSize(1);
    assertThat(d.get(0).summary()).isEqualTo("Unsupported connection type");
    assertThat(at(d.get(0))).isEqualTo("main.tf:6:23");
  }

  @Test
  void anExpressionIsCheckedWhenTheStepIsResolvedNotHere() {
    // only literals are checked at load; an expression may well be null or "unix" at apply
    List<Diagnostic> d =
        diagnostics(
            """
            host            = "h"
            target_platform = lower("UNIX")
            agent           = !false
            """);

    assertThat(d).isEmpty();
  }

  @Test
  void theJsonSyntaxGetsTheSameTreatment() {
    String json =
        """
        {"resource": {"stateful_provisioning": {"app": {
          "state_key": "x",
          "connection": {
            "host": "h",
            "https": null,
            "insecure": true,
            "target_platform": "windows"
          }
        }}}}
        """;

    List<Diagnostic> d = ConfigLoader.load(Map.of("main.tf.json", json)).diagnostics().list();

    assertThat(d)
        .extracting(Diagnostic::summary)
        .containsExactlyInAnyOrder("Ignored connection argument", "Unsupported target platform");
    assertThat(d)
        .filteredOn(Diagnostic::isError)
        .singleElement()
        .satisfies(e -> assertThat(at(e)).startsWith("main.tf.json:7:"));
  }

  @Test
  void anArgumentOutsideTerraformsSchemaIsStillAnError() {
    List<Diagnostic> d =
        diagnostics(
            """
            host       = "h"
            proxy_pass = "x"
            """);

    assertThat(d)
        .singleElement()
        .satisfies(e -> assertThat(e.summary()).isEqualTo("Unsupported argument"));
    assertThat(d.get(0).detail()).contains("agent_identity", "proxy_user_password", "use_ntlm");
  }
}
