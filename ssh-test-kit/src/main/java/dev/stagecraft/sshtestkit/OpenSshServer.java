package dev.stagecraft.sshtestkit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real OpenSSH {@code sshd} on a free loopback port with its own host key, config and authorized
 * keys (an ed25519 and a PEM RSA client key), running as the current user (root here), public-key
 * authentication only. It also trusts a user CA of its own ({@code TrustedUserCAKeys}): {@link
 * #userCertificate} signs certificates for {@link #certifiedKey}, a key that is <em>not</em> in its
 * authorized keys, so a login with it succeeds only through a certificate.
 *
 * <p>As a JUnit 5 extension for the tests of a class: {@code @RegisterExtension static final
 * OpenSshServer SSHD = new OpenSshServer();}; elsewhere {@link #start} and {@link #close}. Its
 * files live in a fresh directory under {@code target/} of the working directory and are deleted on
 * close. Fails, not skips, when OpenSSH is not installed. Not thread-safe: start, restart and close
 * from one thread; the getters may be called from any thread once it is started.
 */
public final class OpenSshServer implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  static final String SSHD = "/usr/sbin/sshd";
  private static final String MISSING = " is missing: run dev/test, which installs openssh-server";

  private final String listenAddress;
  private final Supplier<List<String>> extraConfig;
  private Path dir;
  private Process process;
  private int port;
  private int generation;
  private int certificates;

  /** On 127.0.0.1 with the default configuration. */
  public OpenSshServer() {
    this("127.0.0.1", List::of);
  }

  /**
   * @param listenAddress the only loopback address it listens on (any of 127.0.0.0/8)
   * @param extraConfig sshd_config lines that take precedence over the defaults (e.g. {@code
   *     PermitOpen}), asked for when the server starts (so they may name the port of a server
   *     started earlier); {@code %PORT%} is replaced by this server's port
   */
  public OpenSshServer(String listenAddress, Supplier<List<String>> extraConfig) {
    this.listenAddress = listenAddress;
    this.extraConfig = extraConfig;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    close();
  }

  /** Generates the keys and the CA, picks a free port and starts sshd; returns once it listens. */
  public OpenSshServer start() throws Exception {
    if (!Files.isExecutable(Path.of(SSHD))) {
      throw new IllegalStateException(SSHD + MISSING);
    }
    Files.createDirectories(Path.of("target"));
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sshd-");
    keygen("ed25519", "client_ed25519");
    keygen("ed25519", "other_ed25519");
    keygen("ed25519", "certified_ed25519");
    keygen("ed25519", "user_ca");
    keygen("ed25519", "untrusted_ca");
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
    launch();
    return this;
  }

  /** Stops sshd and starts it on the same port with a freshly generated host key. */
  public void restartWithNewHostKey() throws Exception {
    stop();
    launch();
  }

  private void launch() throws Exception {
    generation++;
    keygen("ed25519", hostKeyName());
    List<String> lines =
        new ArrayList<>(
            List.of(
                "Port " + port,
                "ListenAddress " + listenAddress,
                "HostKey " + dir.resolve(hostKeyName()),
                "PidFile " + dir.resolve("sshd.pid"),
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "TrustedUserCAKeys " + dir.resolve("user_ca.pub"),
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
    Path config = dir.resolve("sshd_config");
    Files.write(config, lines);
    Path log = dir.resolve("sshd.log");
    process =
        new ProcessBuilder(SSHD, "-D", "-e", "-f", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
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
                socket.connect(new InetSocketAddress(listenAddress, port), 1000);
                return true;
              }
            });
  }

  private String hostKeyName() {
    return generation == 1 ? "host_ed25519" : "host_ed25519_" + generation;
  }

  /** Stops sshd and waits for it to exit (an interrupt kills it and keeps the flag set). */
  private void stop() {
    if (process != null) {
      process.destroy();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
      process = null;
    }
  }

  /** Stops sshd and deletes its files. */
  @Override
  public void close() throws IOException {
    stop();
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
      dir = null;
    }
  }

  private void keygen(String type, String name, String... extra) throws Exception {
    run(
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
            .toList());
  }

  private static void run(List<String> command) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException(command.getFirst() + MISSING, e);
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
    }
  }

  /**
   * Signs {@link #certifiedKey} as an OpenSSH user certificate ({@code ssh-keygen -s CA -I id -n
   * principals -V validity}) with the CA this server trusts.
   *
   * @param principals comma-separated, as for {@code ssh-keygen -n}
   * @param validity as for {@code ssh-keygen -V}, e.g. {@code -5m:+1h} or {@code 20200101:20200102}
   * @return the certificate text, {@code ssh-ed25519-cert-v01@openssh.com AAAA... comment}
   */
  public String userCertificate(String id, String principals, String validity) throws Exception {
    return sign("user_ca", id, principals, validity);
  }

  /** As {@link #userCertificate}, but signed by a CA this server does not trust. */
  public String untrustedCertificate(String id, String principals) throws Exception {
    return sign("untrusted_ca", id, principals, "-5m:+1h");
  }

  private String sign(String ca, String id, String principals, String validity) throws Exception {
    // ssh-keygen writes NAME-cert.pub next to NAME.pub: one copy of the public key per certificate
    String name = "certified_" + ++certificates;
    Files.copy(dir.resolve("certified_ed25519.pub"), dir.resolve(name + ".pub"));
    run(
        List.of(
            "ssh-keygen",
            "-q",
            "-s",
            dir.resolve(ca).toString(),
            "-I",
            id,
            "-n",
            principals,
            "-V",
            validity,
            dir.resolve(name + ".pub").toString()));
    return Files.readString(dir.resolve(name + "-cert.pub")).strip();
  }

  public String host() {
    return listenAddress;
  }

  public int port() {
    return port;
  }

  public String user() {
    return System.getProperty("user.name");
  }

  /** The directory of its files (a scratch directory for whoever runs it, too). */
  public Path dir() {
    return dir;
  }

  /** What sshd logged so far (its stderr, with {@code LogLevel} as configured). */
  public String log() throws IOException {
    return Files.readString(dir.resolve("sshd.log"));
  }

  /** The OpenSSH ed25519 private key text of the authorized client key. */
  public String ed25519Key() throws IOException {
    return Files.readString(clientKeyFile());
  }

  /** The file of {@link #ed25519Key} (for {@code ssh -i}). */
  public Path clientKeyFile() {
    return dir.resolve("client_ed25519");
  }

  /** An OpenSSH ed25519 private key that is not authorized (a wrong key). */
  public String unauthorizedKey() throws IOException {
    return Files.readString(dir.resolve("other_ed25519"));
  }

  /**
   * The private key that {@link #userCertificate} certifies; not authorized on its own, so it logs
   * in only with a certificate.
   */
  public String certifiedKey() throws IOException {
    return Files.readString(dir.resolve("certified_ed25519"));
  }

  /** The PEM ({@code BEGIN RSA PRIVATE KEY}) text of the authorized RSA client key. */
  public String rsaPemKey() throws IOException {
    return Files.readString(dir.resolve("client_rsa"));
  }

  /** The server's current host key as {@code ssh-ed25519 AAAA...}. */
  public String hostKey() throws IOException {
    return publicKey(hostKeyName());
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
