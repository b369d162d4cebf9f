package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.sshtestkit.OpenSshServer;
import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Host key trust on first use, end to end through the CLI against the real stack and a real OpenSSH
 * sshd: the first apply records the host's key for the workspace ({@code known-hosts list} shows
 * it); after the host is re-keyed, the next apply that runs a remote-exec step fails with the "host
 * key changed" message, runs nothing on the host and exits 1; {@code known-hosts remove} lets the
 * following apply trust the new key.
 */
class HostKeyTrustTest {
  static SharedStack stack;
  static OpenSshServer sshd;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    sshd = new OpenSshServer().start();
  }

  @AfterAll
  static void stopSshd() throws Exception {
    if (sshd != null) {
      sshd.close();
    }
  }

  static String config(Path markers) {
    return """
        variable "revision" {
        }

        resource "stateful_provisioning" "app" {
          state_key = var.revision

          connection {
            type        = "ssh"
            host        = "127.0.0.1"
            port        = %d
            user        = "%s"
            private_key = file("client_key")
            timeout     = "30s"
          }

          provisioner "remote-exec" {
            inline = ["touch %s/ran-${var.revision}"]
          }
        }
        """
        .formatted(sshd.port(), sshd.user(), markers);
  }

  private static String fingerprint(String publicKey) throws Exception {
    byte[] blob = Base64.getDecoder().decode(publicKey.split(" ")[1]);
    return "SHA256:"
        + Base64.getEncoder()
            .withoutPadding()
            .encodeToString(MessageDigest.getInstance("SHA-256").digest(blob));
  }

  @Test
  void aKeyTrustedOnFirstUseIsEnforcedAndAChangedKeyRunsNothing() throws Exception {
    Path markers = Files.createDirectories(stack.root.resolve("host-key-markers"));
    Path dir = stack.configDir("host-key", config(markers));
    Files.writeString(dir.resolve("client_key"), sshd.ed25519Key());
    String ws = "-workspace=host-key";
    String where = "127.0.0.1:" + sshd.port();
    String firstKey = sshd.hostKey();

    CliResult first = stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision=r1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    assertThat(markers.resolve("ran-r1")).exists();
    CliResult listed = stack.cli(dir, "known-hosts", "list", ws);
    assertThat(listed.exitCode()).as(listed.all()).isZero();
    assertThat(listed.out())
        .contains(where, "ssh-ed25519 " + fingerprint(firstKey), "first use in workspace host-key");

    sshd.restartWithNewHostKey();
    assertThat(sshd.hostKey()).isNotEqualTo(firstKey);
    CliResult changed = stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision=r2");
    assertThat(changed.exitCode()).as(changed.all()).isEqualTo(1);
    assertThat(changed.all())
        .contains(
            "host key changed for " + where,
            "the host offered ssh-ed25519 " + fingerprint(sshd.hostKey()),
            "ssh-ed25519 " + fingerprint(firstKey) + " (first use in workspace host-key",
            "nothing was run",
            "stagecraft known-hosts remove -workspace=host-key " + where);
    assertThat(markers.resolve("ran-r2")).doesNotExist();
    // the recorded key stays what it was: a changed key is never learned over it
    assertThat(stack.cli(dir, "known-hosts", "list", ws).out())
        .contains(fingerprint(firstKey))
        .doesNotContain(fingerprint(sshd.hostKey()));

    CliResult removed = stack.cli(dir, "known-hosts", "remove", ws, where);
    assertThat(removed.exitCode()).as(removed.all()).isZero();
    assertThat(removed.out()).contains("Removed ssh-ed25519 " + fingerprint(firstKey));
    CliResult retrusted = stack.cli(dir, "apply", ws, "-auto-approve", "-var", "revision=r3");
    assertThat(retrusted.exitCode()).as(retrusted.all()).isZero();
    assertThat(markers.resolve("ran-r3")).exists();
    assertThat(stack.cli(dir, "known-hosts", "list", ws).out())
        .contains(fingerprint(sshd.hostKey()));
  }

  @Test
  void knownHostsAreAddedListedAndRemovedThroughTheCli() throws Exception {
    Path dir = stack.configDir("known-hosts", "");
    String key = sshd.hostKey();

    CliResult added = stack.cli(dir, "known-hosts", "add", "Jump.Internal:2200", key);
    assertThat(added.exitCode()).as(added.all()).isZero();
    assertThat(added.out()).contains("jump.internal:2200", fingerprint(key));
    assertThat(stack.cli(dir, "known-hosts", "list", "-workspace=any").out())
        .contains("jump.internal:2200", fingerprint(key), "tenant known hosts");

    CliResult invalid = stack.cli(dir, "known-hosts", "add", "jump.internal", "ssh-ed25519");
    assertThat(invalid.exitCode()).isEqualTo(1);
    assertThat(invalid.err()).contains("publicKey must be \"<type> <base64>\"");

    CliResult removed = stack.cli(dir, "known-hosts", "remove", "jump.internal:2200");
    assertThat(removed.exitCode()).as(removed.all()).isZero();
    assertThat(removed.out()).contains("Removed ssh-ed25519 " + fingerprint(key));
    assertThat(stack.cli(dir, "known-hosts", "list").out()).doesNotContain("jump.internal:2200");
  }
}
