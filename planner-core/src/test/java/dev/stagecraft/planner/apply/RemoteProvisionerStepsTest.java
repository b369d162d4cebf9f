package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** remote-exec and file steps: connection, inline/scripts, content/source, secrets. */
class RemoteProvisionerStepsTest {
  static final String KEY =
      """
      -----BEGIN OPENSSH PRIVATE KEY-----
      b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
      QyNTUxOQAAACDzDUMMYKEYFORTESTSONLYnotarealkeyatallAAAAAAAAAAAAAAAAAAAA
      -----END OPENSSH PRIVATE KEY-----
      """;

  @TempDir Path dir;

  private ActionResolution resolve(String config) {
    return AppResolution.resolveApp(config, dir);
  }

  private ActionResolution resolveOk(String config) {
    ActionResolution r = resolve(config);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    return r;
  }

  @Test
  void remoteExecInlineUsesTheResourceConnectionUnlessTheProvisionerOverridesIt() {
    ActionResolution r =
        resolveOk(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                type     = "ssh"
                host     = "10.0.0.1"
                user     = "deploy"
                password = "s3cret-pw"
              }
              provisioner "remote-exec" {
                inline = ["echo ${self.id}", "uptime"]
              }
              provisioner "remote-exec" {
                inline = ["hostname"]
                connection {
                  host         = "10.0.0.2"
                  port         = 2222
                  timeout      = "2m30s"
                  host_key     = "ssh-ed25519 AAAAC3Nza"
                  bastion_host = "jump.example.com"
                }
              }
            }
            """);
    assertThat(r.steps()).hasSize(2);
    ProvisionerStep first = r.steps().get(0);
    assertThat(first.type()).isEqualTo("remote-exec");
    assertThat(first.inline()).containsExactly("echo a1", "uptime");
    assertThat(first.scripts()).isEmpty();
    assertThat(first.sensitive()).isFalse();
    assertThat(first.connection())
        .isEqualTo(
            new SshConnection(
                "10.0.0.1", 22, "deploy", "s3cret-pw", null, null, null, 300, List.of()));

    ProvisionerStep second = r.steps().get(1);
    assertThat(second.inline()).containsExactly("hostname");
    SshConnection c = second.connection();
    // the provisioner's arguments mask the resource's; the others (user, password) still apply
    assertThat(c.host()).isEqualTo("10.0.0.2");
    assertThat(c.port()).isEqualTo(2222);
    assertThat(c.user()).isEqualTo("deploy");
    assertThat(c.password()).isEqualTo("s3cret-pw");
    assertThat(c.timeoutSeconds()).isEqualTo(150);
    assertThat(c.hostKey()).isEqualTo("ssh-ed25519 AAAAC3Nza");
    // the bastion defaults to the connection's port, user and credentials, as in Terraform
    assertThat(c.bastions())
        .containsExactly(
            new SshConnection.Bastion("jump.example.com", 2222, "deploy", "s3cret-pw", null, null));
    assertThat(r.connections().get(1))
        .containsEntry("host", "10.0.0.2")
        .containsEntry("user", "deploy");
    assertThat(r.sensitiveValues()).contains("s3cret-pw");
  }

  @Test
  void userDefaultsToRootAndInlineWithASensitiveValueMarksTheStep() {
    ActionResolution r =
        resolveOk(
            """
            variable "token" {
              default   = "tok-123456"
              sensitive = true
            }
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              provisioner "remote-exec" {
                inline = ["register --token=${var.token}"]
                connection {
                  host        = "h"
                  private_key = "inline-key-text"
                }
              }
            }
            """);
    ProvisionerStep step = r.steps().get(0);
    assertThat(step.sensitive()).isTrue();
    assertThat(step.connection().user()).isEqualTo("root");
    assertThat(step.connection().privateKey()).isEqualTo("inline-key-text");
    assertThat(r.sensitiveValues()).contains("tok-123456", "inline-key-text");
  }

  @Test
  void scriptsAreReadRelativeToTheConfigurationDirectoryInOrder() throws IOException {
    Files.createDirectories(dir.resolve("scripts"));
    Files.writeString(dir.resolve("scripts/01.sh"), "#!/bin/sh\necho one\n");
    Files.writeString(dir.resolve("scripts/02.sh"), "#!/bin/sh\necho two\n");
    Files.writeString(dir.resolve("check.sh"), "#!/bin/sh\necho check\n");
    ActionResolution r =
        resolveOk(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                host = "h"
              }
              provisioner "remote-exec" {
                scripts = ["scripts/02.sh", "scripts/01.sh"]
              }
              provisioner "remote-exec" {
                script = "check.sh"
              }
            }
            """);
    assertThat(r.steps().get(0).scripts())
        .containsExactly("#!/bin/sh\necho two\n", "#!/bin/sh\necho one\n");
    assertThat(r.steps().get(0).inline()).isEmpty();
    assertThat(r.steps().get(1).scripts()).containsExactly("#!/bin/sh\necho check\n");
  }

  @Test
  void aMissingScriptIsAnErrorAtTheArgument() {
    ActionResolution r =
        resolve(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                host = "h"
              }
              provisioner "remote-exec" {
                script = "nope.sh"
              }
            }
            """);
    assertThat(r.hasErrors()).isTrue();
    Diagnostic d = r.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("No such file");
    assertThat(d.detail()).contains("nope.sh");
    assertThat(d.range().toString()).isEqualTo("main.tf:7:5");
    assertThat(r.steps()).isEmpty();
  }

  @Test
  void fileWithContentAndWithASourceFileAndDirectory() throws IOException {
    Files.writeString(dir.resolve("app.conf"), "port = 8080\n");
    Files.createDirectories(dir.resolve("site/css"));
    Files.writeString(dir.resolve("site/index.html"), "<h1>hi</h1>");
    Files.write(dir.resolve("site/css/logo.bin"), new byte[] {0, (byte) 0xff, 1});
    ActionResolution r =
        resolveOk(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                host = "h"
              }
              provisioner "file" {
                content     = "id=${self.id}"
                destination = "/etc/app/id"
              }
              provisioner "file" {
                source      = "app.conf"
                destination = "/etc/app/app.conf"
              }
              provisioner "file" {
                source      = "site/"
                destination = "/var/www"
              }
              provisioner "file" {
                source      = "site"
                destination = "/srv"
              }
            }
            """);
    assertThat(r.steps()).extracting(ProvisionerStep::type).containsOnly("file");
    ProvisionerStep content = r.steps().get(0);
    assertThat(content.content()).isEqualTo("id=a1");
    assertThat(content.destination()).isEqualTo("/etc/app/id");
    assertThat(content.files()).isEmpty();
    assertThat(content.connection().host()).isEqualTo("h");
    assertThat(r.steps().get(1).content()).isEqualTo("port = 8080\n");
    String html =
        Base64.getEncoder().encodeToString("<h1>hi</h1>".getBytes(StandardCharsets.UTF_8));
    String bin = Base64.getEncoder().encodeToString(new byte[] {0, (byte) 0xff, 1});
    // "site/" uploads the directory's contents, "site" the directory itself (as Terraform)
    assertThat(r.steps().get(2).files())
        .containsExactlyInAnyOrderEntriesOf(Map.of("index.html", html, "css/logo.bin", bin));
    assertThat(r.steps().get(2).content()).isNull();
    assertThat(r.steps().get(3).files())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("site/index.html", html, "site/css/logo.bin", bin));
  }

  @Test
  void keyFileIsReadIntoThePrivateKeyAndEverySecretIsSensitive() throws IOException {
    Files.createDirectories(dir.resolve("keys"));
    Files.writeString(dir.resolve("keys/deploy"), KEY);
    ActionResolution r =
        resolveOk(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                host             = "10.0.0.5"
                key_file         = "keys/deploy"
                bastion_host     = "jump"
                bastion_user     = "hop"
                bastion_password = "bastion-pw"
              }
              provisioner "remote-exec" {
                inline = ["true"]
              }
            }
            """);
    SshConnection c = r.steps().get(0).connection();
    assertThat(c.privateKey()).isEqualTo(KEY);
    assertThat(c.bastions())
        .containsExactly(new SshConnection.Bastion("jump", 22, "hop", "bastion-pw", KEY, null));
    assertThat(r.sensitiveValues())
        .contains(
            KEY,
            "bastion-pw",
            // each line of the key body too: output is redacted line by line
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW")
        .doesNotContain("-----BEGIN OPENSSH PRIVATE KEY-----");
    // the step itself is not sensitive: its commands hold no secret
    assertThat(r.steps().get(0).sensitive()).isFalse();
    // the evaluated connection names the key file, never its content
    assertThat(r.connections().get(0)).containsEntry("key_file", "keys/deploy");
    assertThat(r.connections().get(0).values()).doesNotContain(KEY);
  }

  @Test
  void aMissingKeyFileIsAnErrorAtTheArgument() {
    ActionResolution r =
        resolve(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              provisioner "remote-exec" {
                inline = ["true"]
                connection {
                  host     = "h"
                  key_file = "keys/missing"
                }
              }
            }
            """);
    Diagnostic d = r.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("No such file");
    assertThat(d.detail()).contains("keys/missing");
    assertThat(d.range().toString()).isEqualTo("main.tf:7:7");
  }

  @Test
  void aMissingHostIsAnErrorAtTheConnectionBlock() {
    ActionResolution r =
        resolve(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                user = "deploy"
              }
              provisioner "remote-exec" {
                inline = ["true"]
              }
            }
            """);
    assertThat(r.hasErrors()).isTrue();
    Diagnostic d = r.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Missing connection host");
    assertThat(d.range().toString()).isEqualTo("main.tf:3:3");
    assertThat(r.steps()).isEmpty();
  }

  @Test
  void remoteExecWithoutAnyConnectionIsAnError() {
    ActionResolution r =
        resolve(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              provisioner "remote-exec" {
                inline = ["true"]
              }
            }
            """);
    Diagnostic d = r.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Missing connection");
    assertThat(d.range().toString()).isEqualTo("main.tf:3:3");
  }

  @Test
  void anInvalidTimeoutIsAnErrorAtTheArgument() {
    ActionResolution r =
        resolve(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                host    = "h"
                timeout = "5 minutes"
              }
              provisioner "remote-exec" {
                inline = ["true"]
              }
            }
            """);
    Diagnostic d = r.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("Invalid duration");
    assertThat(d.range().toString()).isEqualTo("main.tf:5:5");
  }

  @Test
  void localExecIgnoresTheConnection() {
    ActionResolution r =
        resolveOk(
            """
            resource "stateful_provisioning" "app" {
              state_key = "v1"
              connection {
                user = "no host needed"
              }
              provisioner "local-exec" {
                command = "echo hi"
              }
            }
            """);
    assertThat(r.steps().get(0).connection()).isNull();
    assertThat(r.steps().get(0).command()).isEqualTo("echo hi");
  }

  @Test
  void durationsAreTerraformDurationStringsInWholeSeconds() {
    assertThat(Durations.seconds("2m30s")).hasValue(150);
    assertThat(Durations.seconds("5m")).hasValue(300);
    assertThat(Durations.seconds("1h")).hasValue(3600);
    assertThat(Durations.seconds("1.5m")).hasValue(90);
    assertThat(Durations.seconds("500ms")).hasValue(1);
    assertThat(Durations.seconds("0")).hasValue(0);
    assertThat(Durations.seconds("30")).isEmpty();
    assertThat(Durations.seconds("-5s")).isEmpty();
    assertThat(Durations.seconds("5 m")).isEmpty();
    assertThat(Durations.seconds("5d")).isEmpty();
    assertThat(Durations.seconds("")).isEmpty();
  }
}
