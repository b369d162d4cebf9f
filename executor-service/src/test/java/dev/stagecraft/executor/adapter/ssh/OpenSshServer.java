package dev.stagecraft.executor.adapter.ssh;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real OpenSSH {@code sshd} on a free loopback port with its own host key, config and authorized
 * keys (an ed25519 and a PEM RSA client key), for the tests of a class: {@code @RegisterExtension
 * static final OpenSshServer SSHD = new OpenSshServer();}. Runs as the current user (root here),
 * public-key authentication only. Fails, not skips, when OpenSSH is not installed.
 */
public final class OpenSshServer implements BeforeAllCallback, AfterAllCallback {
  static final String SSHD = "/usr/sbin/sshd";
  private static final String MISSING = " is missing: run dev/test, which installs openssh-server";

  private final String listenAddress;
  private final java.util.function.Supplier<List<String>> extraConfig;
  private Path dir;
  private Process process;
  private int port;

  /** On 127.0.0.1 with the default configuration. */
  public OpenSshServer() {
    this("127.0.0.1", List::of);
  }

  /**
   * @param listenAddress the only loopback address it listens on (any of 127.0.0.0/8)
   * @param extraConfig sshd_config lines that take precedence over the defaults (e.g. {@code
   *     PermitOpen}), asked for when the server starts (so they may name the port of a server
   *     registered earlier); {@code %PORT%} is replaced by this server's port
   */
  public OpenSshServer(
      String listenAddress, java.util.function.Supplier<List<String>> extraConfig) {
    this.listenAddress = listenAddress;
    this.extraConfig = extraConfig;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    if (!Files.isExecutable(Path.of(SSHD))) {
      throw new IllegalStateException(SSHD + MISSING);
    }
    Files.createDirectories(Path.of("target"));
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sshd-");
    keygen("ed25519", "host_ed25519");
    keygen("ed25519", "client_ed25519");
    keygen("ed25519", "other_ed25519");
    keygen("rsa", "client_rsa", "-b", "2048", "-m", "PEM");
    Files.writeString(
        dir.resolve("authorized_keys"),
        Files.readString(dir.resolve("client_ed25519.pub"))
            + Files.readString(dir.resolve("client_rsa.pub")));
    // sshd refuses to start without its privilege separation directory.
    Files.createDirectories(Path.of("/run/sshd"));
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Path config = dir.resolve("sshd_config");
    List<String> lines =
        new java.util.ArrayList<>(
            List.of(
                "Port " + port,
                "ListenAddress " + listenAddress,
                "HostKey " + dir.resolve("host_ed25519"),
                "PidFile " + dir.resolve("sshd.pid"),
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "PermitRootLogin yes",
                "Subsystem sftp internal-sftp"));
    // sshd takes the first value it reads for most keywords: extra lines go before the defaults
    // they override, so AllowTcpForwarding (a default) comes last.
    List<String> extra = extraConfig.get();
    lines.addAll(0, extra.stream().map(l -> l.replace("%PORT%", Integer.toString(port))).toList());
    if (extra.stream().noneMatch(line -> line.startsWith("AllowTcpForwarding"))) {
      lines.add("AllowTcpForwarding yes");
    }
    Files.write(config, lines);
    process =
        new ProcessBuilder(SSHD, "-D", "-e", "-f", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("sshd.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(
                    "sshd exited: " + Files.readString(dir.resolve("sshd.log")));
              }
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(listenAddress, port), 1000);
                return true;
              }
            });
  }

  private void keygen(String type, String name, String... extra) throws Exception {
    List<String> command =
        Stream.concat(
                Stream.of(
                    "ssh-keygen",
                    "-q",
                    "-t",
                    type,
                    "-N",
                    "",
                    "-C",
                    name,
                    "-f",
                    dir.resolve(name).toString()),
                Stream.of(extra))
            .toList();
    Process keygen;
    try {
      keygen = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("ssh-keygen" + MISSING, e);
    }
    String output = new String(keygen.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (keygen.waitFor() != 0) {
      throw new IllegalStateException("ssh-keygen failed: " + output);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (process != null) {
      process.destroy();
      process.waitFor();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  public String host() {
    return listenAddress;
  }

  /** What sshd logged so far (its stderr, with {@code LogLevel} as configured). */
  public String log() throws IOException {
    return Files.readString(dir.resolve("sshd.log"));
  }

  public int port() {
    return port;
  }

  public String user() {
    return System.getProperty("user.name");
  }

  /** The OpenSSH ed25519 private key text of the authorized client key. */
  public String ed25519Key() throws IOException {
    return Files.readString(dir.resolve("client_ed25519"));
  }

  /** An OpenSSH ed25519 private key that is not authorized (a wrong key). */
  public String unauthorizedKey() throws IOException {
    return Files.readString(dir.resolve("other_ed25519"));
  }

  /** The PEM ({@code BEGIN RSA PRIVATE KEY}) text of the authorized RSA client key. */
  public String rsaPemKey() throws IOException {
    return Files.readString(dir.resolve("client_rsa"));
  }

  /** The server's host key as {@code ssh-ed25519 AAAA...}. */
  public String hostKey() throws IOException {
    return publicKey("host_ed25519");
  }

  /** A valid ed25519 public key that is not the server's. */
  public String otherHostKey() throws IOException {
    return publicKey("other_ed25519");
  }

  private String publicKey(String name) throws IOException {
    String[] parts = Files.readString(dir.resolve(name + ".pub")).trim().split("\\s+");
    return parts[0] + " " + parts[1];
  }
}
