package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.action.SshConnection.Proxy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection arguments resolved at dispatch beyond host and credentials: {@code proxy_*},
 * {@code script_path}, {@code target_platform}, and the Terraform arguments that are accepted but
 * have no effect over SSH ({@code agent}, {@code agent_identity}, the WinRM-only ones).
 */
class ConnectionOptionsResolutionTest {
  @TempDir Path dir;

  /** The connection body starts on line 10. */
  private ActionResolution resolve(String connection) {
    String config =
        """
        variable "proxy_password" {
          default   = "pr0xy-secret-pw"
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

  private static SshConnection connectionOf(ActionResolution r) {
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    return r.steps().get(0).connection();
  }

  private static Diagnostic onlyError(ActionResolution r) {
    assertThat(r.diagnostics().errors()).as(r.renderDiagnostics()).hasSize(1);
    return r.diagnostics().errors().get(0);
  }

  @Test
  void aSocks5ProxyWithCredentialsAndThePasswordRedacted() {
    ActionResolution r =
        resolve(
            """
                  host                = "10.0.2.7"
                  private_key         = "k"
                  proxy_scheme        = "socks5"
                  proxy_host          = "proxy.example"
                  proxy_port          = 1080
                  proxy_user_name     = "tunnel"
                  proxy_user_password = var.proxy_password
            """);

    assertThat(connectionOf(r).proxy())
        .isEqualTo(new Proxy("socks5", "proxy.example", 1080, "tunnel", "pr0xy-secret-pw"));
    assertThat(r.sensitiveValues())
        .contains("pr0xy-secret-pw")
        .doesNotContain("tunnel", "proxy.example");
    assertThat(connectionOf(r).proxy().toString()).doesNotContain("pr0xy-secret-pw");
  }

  @Test
  void aLiteralProxyPasswordIsSecretToo() {
    ActionResolution r =
        resolve(
            """
                  host                = "10.0.2.7"
                  private_key         = "k"
                  proxy_host          = "proxy.example"
                  proxy_port          = "3128"
                  proxy_user_name     = "tunnel"
                  proxy_user_password = "literal-proxy-pw"
            """);

    // the scheme defaults to http, as in Terraform; a numeric string is a port
    assertThat(connectionOf(r).proxy())
        .isEqualTo(new Proxy("http", "proxy.example", 3128, "tunnel", "literal-proxy-pw"));
    assertThat(r.sensitiveValues()).contains("literal-proxy-pw");
    assertThat(r.steps().get(0).sensitive()).isFalse();
  }

  @Test
  void withABastionTheProxyStaysOnTheConnectionForTheFirstHop() {
    ActionResolution r =
        resolve(
            """
                  host         = "10.0.2.7"
                  private_key  = "k"
                  bastion_host = "jump.example"
                  proxy_host   = "proxy.example"
                  proxy_port   = 8080
            """);

    SshConnection c = connectionOf(r);
    assertThat(c.bastions())
        .extracting(SshConnection.Bastion::host)
        .containsExactly("jump.example");
    assertThat(c.proxy()).isEqualTo(new Proxy("http", "proxy.example", 8080, null, null));
  }

  @Test
  void aProxyHostWithoutAPortIsAnErrorSayingWhatToSet() {
    ActionResolution r =
        resolve(
            """
                  host        = "10.0.2.7"
                  private_key = "k"
                  proxy_host  = "proxy.example"
            """);

    Diagnostic d = onlyError(r);
    assertThat(d.summary()).isEqualTo("Missing proxy port");
    assertThat(d.detail()).contains("proxy_host needs proxy_port", "set proxy_port = ...");
    assertThat(d.range().toString()).startsWith("main.tf:12:");
  }

  @Test
  void aComputedSchemeIsCheckedAtDispatch() {
    ActionResolution r =
        resolve(
            """
                  host         = "10.0.2.7"
                  private_key  = "k"
                  proxy_host   = "proxy.example"
                  proxy_port   = 1080
                  proxy_scheme = lower("SOCKS4")
            """);

    Diagnostic d = onlyError(r);
    assertThat(d.summary()).isEqualTo("Unsupported proxy scheme");
    assertThat(d.detail()).contains("\"socks4\"", "\"socks5\"");
    assertThat(d.range().toString()).startsWith("main.tf:14:");
  }

  @Test
  void aPortOutOfRangeAndAPasswordWithoutUserAreErrors() {
    ActionResolution r =
        resolve(
            """
                  host                = "10.0.2.7"
                  private_key         = "k"
                  proxy_host          = "proxy.example"
                  proxy_port          = 70000
                  proxy_user_password = var.proxy_password
            """);

    assertThat(r.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactlyInAnyOrder("Invalid argument value", "Missing proxy user name");
    assertThat(r.renderDiagnostics()).doesNotContain("pr0xy-secret-pw");
  }

  @Test
  void proxyArgumentsWithoutProxyHostAreAWarningAndNoProxy() {
    ActionResolution r =
        resolve(
            """
                  host         = "10.0.2.7"
                  private_key  = "k"
                  proxy_scheme = "socks5"
                  proxy_port   = 1080
            """);

    assertThat(connectionOf(r).proxy()).isNull();
    assertThat(r.diagnostics().list())
        .extracting(Diagnostic::summary)
        .containsExactly("Proxy argument without proxy_host", "Proxy argument without proxy_host");
  }

  @Test
  void theScriptPathGoesToTheExecutorWithRandLeftForIt() {
    ActionResolution r =
        resolve(
            """
                  host        = "10.0.2.7"
                  private_key = "k"
                  script_path = "/var/tmp/deploy_%RAND%.sh"
            """);

    assertThat(connectionOf(r).scriptPath()).isEqualTo("/var/tmp/deploy_%RAND%.sh");
  }

  @Test
  void aRelativeScriptPathIsAnError() {
    ActionResolution r =
        resolve(
            """
                  host        = "10.0.2.7"
                  private_key = "k"
                  script_path = "deploy.sh"
            """);

    Diagnostic d = onlyError(r);
    assertThat(d.summary()).isEqualTo("Invalid argument value");
    assertThat(d.detail())
        .contains("script_path must be the absolute path of a file on the target")
        .contains("\"deploy.sh\"");
    assertThat(d.range().toString()).startsWith("main.tf:12:");
  }

  @Test
  void aComputedTargetPlatformOtherThanUnixIsAnError() {
    ActionResolution r =
        resolve(
            """
                  host            = "10.0.2.7"
                  private_key     = "k"
                  target_platform = lower("WINDOWS")
            """);

    Diagnostic d = onlyError(r);
    assertThat(d.summary()).isEqualTo("Unsupported target platform");
    assertThat(d.detail()).contains("unix targets only");
    assertThat(d.range().toString()).startsWith("main.tf:12:");
  }

  @Test
  void unixAgentAndTheWinRmArgumentsChangeNothing() {
    ActionResolution r =
        resolve(
            """
                  host            = "10.0.2.7"
                  private_key     = "k"
                  target_platform = "unix"
                  agent           = true
                  agent_identity  = "deploy@laptop"
                  https           = true
                  insecure        = true
                  use_ntlm        = true
                  cacert          = "pem"
            """);

    SshConnection c = connectionOf(r);
    assertThat(c.proxy()).isNull();
    assertThat(c.scriptPath()).isNull();
    assertThat(c.host()).isEqualTo("10.0.2.7");
  }

  @Test
  void everyArgumentSetToNullIsUnset() {
    ActionResolution r =
        resolve(
            """
                  host                = "10.0.2.7"
                  private_key         = "k"
                  target_platform     = null
                  script_path         = null
                  proxy_scheme        = null
                  proxy_host          = null
                  proxy_port          = null
                  proxy_user_name     = null
                  proxy_user_password = null
                  agent_identity      = null
                  https               = null
                  bastion_certificate = null
            """);

    SshConnection c = connectionOf(r);
    assertThat(c.proxy()).isNull();
    assertThat(c.scriptPath()).isNull();
    assertThat(r.diagnostics().list()).isEmpty();
  }

  @Test
  void aComputedWinRmTypeIsTheOnlyError() {
    ActionResolution r =
        resolve(
            """
                  type            = lower("WINRM")
                  https           = true
                  target_platform = lower("WINDOWS")
            """);

    // no "Missing connection host", nothing about target_platform: the type says it all
    assertThat(r.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .containsExactly("Unsupported connection type");
  }
}
