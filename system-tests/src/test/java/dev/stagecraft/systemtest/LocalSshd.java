package dev.stagecraft.systemtest;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real OpenSSH {@code sshd} on a free loopback port for system tests — the minimal part of the
 * executor's {@code OpenSshServer} test helper: its own config, one authorized ed25519 client key,
 * public-key authentication only, running as the current user. {@link #restartWithNewHostKey}
 * starts it again on the same port with a freshly generated host key, as a re-keyed (or
 * impersonated) host would look. Fails, not skips, when OpenSSH is not installed.
 */
final class LocalSshd implements AutoCloseable {
  private static final String SSHD = "/usr/sbin/sshd";

  private final Path dir;
  private final int port;
  private Process process;
  private int generation;

  LocalSshd(Path dir) throws Exception {
    if (!Files.isExecutable(Path.of(SSHD))) {
      throw new IllegalStateException(
          SSHD + " is missing: run dev/test, which installs openssh-server");
    }
    this.dir = Files.createDirectories(dir);
    keygen("client_ed25519");
    Files.copy(dir.resolve("client_ed25519.pub"), dir.resolve("authorized_keys"));
    Files.createDirectories(Path.of("/run/sshd"));
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    start();
  }

  private void start() throws Exception {
    generation++;
    String hostKey = "host_ed25519_" + generation;
    keygen(hostKey);
    Path config = dir.resolve("sshd_config");
    Files.write(
        config,
        List.of(
            "Port " + port,
            "ListenAddress 127.0.0.1",
            "HostKey " + dir.resolve(hostKey),
            "PidFile " + dir.resolve("sshd.pid"),
            "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "PermitRootLogin yes",
            "Subsystem sftp internal-sftp"));
    Path log = dir.resolve("sshd-" + generation + ".log");
    process =
        new ProcessBuilder(SSHD, "-D", "-e", "-f", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("sshd exited: " + Files.readString(log));
              }
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return true;
              }
            });
  }

  /** Stops sshd and starts it on the same port with a new host key. */
  void restartWithNewHostKey() throws Exception {
    stop();
    start();
  }

  private void stop() throws InterruptedException {
    if (process != null) {
      process.destroy();
      process.waitFor();
      process = null;
    }
  }

  private void keygen(String name) throws Exception {
    Process keygen =
        new ProcessBuilder(
                "ssh-keygen",
                "-q",
                "-t",
                "ed25519",
                "-N",
                "",
                "-C",
                name,
                "-f",
                dir.resolve(name).toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(keygen.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (keygen.waitFor() != 0) {
      throw new IllegalStateException("ssh-keygen failed: " + output);
    }
  }

  int port() {
    return port;
  }

  String user() {
    return System.getProperty("user.name");
  }

  /** The OpenSSH private key text of the authorized client key. */
  String clientKey() throws IOException {
    return Files.readString(dir.resolve("client_ed25519"));
  }

  /** The current host key as {@code ssh-ed25519 AAAA...}. */
  String hostKey() throws IOException {
    String[] parts =
        Files.readString(dir.resolve("host_ed25519_" + generation + ".pub")).trim().split("\\s+");
    return parts[0] + " " + parts[1];
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
