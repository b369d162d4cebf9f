package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ConnectionResolver} alone: merging, SSH checks, key files and their secrets. */
class ConnectionResolverTest {
  @TempDir Path dir;
  private final Set<String> secrets = new HashSet<>();
  private StepScope scope;

  private ConnectionResolver connection(String resourceBody) {
    ResourceDecl r =
        StepScopes.resource("resource \"terraform_data\" \"app\" {\n" + resourceBody + "}\n");
    scope = StepScopes.scope(r, dir, secrets);
    return new ConnectionResolver(scope, r.connection());
  }

  @Test
  void theProvisionersConnectionArgumentsMaskTheResourcesAndAKeyFileIsASecret() throws IOException {
    Files.writeString(dir.resolve("id_test"), RemoteProvisionerStepsTest.KEY);
    ConnectionResolver c =
        connection(
            """
              connection {
                host = "10.0.0.1"
                user = "deploy"
              }
              provisioner "remote-exec" {
                inline = ["true"]
                connection {
                  host     = "10.0.0.2"
                  key_file = "id_test"
                }
              }
            """);
    SshConnection ssh = c.ssh();
    assertThat(ssh.host()).isEqualTo("10.0.0.2");
    assertThat(ssh.user()).isEqualTo("deploy");
    assertThat(ssh.privateKey()).isEqualTo(RemoteProvisionerStepsTest.KEY);
    assertThat(c.attributes()).containsEntry("host", "10.0.0.2").containsKey("key_file");
    assertThat(secrets)
        .contains(RemoteProvisionerStepsTest.KEY)
        .anyMatch(s -> s.startsWith("b3BlbnNzaC1rZXkt"));
  }

  @Test
  void aPasswordIsASecretEvenWhenItsValueIsNotSensitive() {
    connection(
            """
              provisioner "remote-exec" {
                inline = ["true"]
                connection {
                  host     = "10.0.0.1"
                  password = "plain-pw"
                }
              }
            """)
        .ssh();
    assertThat(secrets).containsExactly("plain-pw");
  }

  @Test
  void privateKeyAndKeyFileTogetherAreRefusedAtKeyFile() {
    ConnectionResolver c =
        connection(
            """
              provisioner "remote-exec" {
                inline = ["true"]
                connection {
                  host        = "10.0.0.1"
                  private_key = "k"
                  key_file    = "id_test"
                }
              }
            """);
    assertThat(c.ssh()).isNull();
    Diagnostic d = onlyError();
    assertThat(d.summary()).isEqualTo("Conflicting connection arguments");
    assertThat(d.range().toString()).isEqualTo("main.tf:7:7");
  }

  @Test
  void anotherConnectionTypeIsTheOnlyError() {
    ConnectionResolver c =
        connection(
            """
              provisioner "remote-exec" {
                inline = ["true"]
                connection {
                  type = lower("WINRM")
                  host = "10.0.0.1"
                }
              }
            """);
    assertThat(c.ssh()).isNull();
    Diagnostic d = onlyError();
    assertThat(d.detail())
        .isEqualTo("The connection type \"winrm\" is not supported; the only type is \"ssh\".");
    assertThat(d.range().toString()).isEqualTo("main.tf:5:7");
  }

  private Diagnostic onlyError() {
    assertThat(scope.diagnostics().errors()).hasSize(1);
    return scope.diagnostics().errors().get(0);
  }
}
