package dev.stagecraft.cli.modules;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.eclipse.jgit.api.TransportConfigCallback;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.SshTransport;
import org.eclipse.jgit.transport.sshd.ServerKeyDatabase;
import org.eclipse.jgit.transport.sshd.SshdSessionFactory;
import org.slf4j.LoggerFactory;

/**
 * The ssh transport of git module fetches, with the user's own credentials as git and {@code
 * terraform init} have them: JGit's Apache MINA sshd client reading the ssh directory ({@code
 * ~/.ssh}, or {@code STAGECRAFT_SSH_DIR}): its {@code config}, the keys {@code id_rsa}, {@code
 * id_ecdsa}, {@code id_ed25519} (and any {@code IdentityFile} of the config), public-key
 * authentication only, no ssh-agent. Host keys must match {@code known_hosts} (the ssh directory's
 * {@code known_hosts} and {@code known_hosts2}, the config's {@code UserKnownHostsFile}, and {@code
 * /etc/ssh/ssh_known_hosts}), whatever the config's {@code StrictHostKeyChecking} says: an unknown
 * or changed host key is refused and {@link #refusal} says which and how to add the key.
 */
final class GitSsh implements AutoCloseable {
  /** The environment variable naming the ssh directory to use instead of {@code $HOME/.ssh}. */
  static final String SSH_DIR_VARIABLE = "STAGECRAFT_SSH_DIR";

  private final Path home;
  private final Path sshDir;
  private final AtomicReference<String> refusal = new AtomicReference<>();
  private final SshdSessionFactory factory;

  GitSsh(Path home, Path sshDir) {
    quiet();
    this.home = home;
    this.sshDir = sshDir;
    this.factory = new Factory();
    factory.setHomeDirectory(home.toFile());
    factory.setSshDirectory(sshDir.toFile());
  }

  /** The ssh setup of the environment: {@code STAGECRAFT_SSH_DIR}, else {@code HOME/.ssh}. */
  static GitSsh of(Map<String, String> env) {
    Path home = Path.of(env.getOrDefault("HOME", System.getProperty("user.home")));
    String dir = env.get(SSH_DIR_VARIABLE);
    return new GitSsh(home, dir != null && !dir.isBlank() ? Path.of(dir) : home.resolve(".ssh"));
  }

  /**
   * Keeps the ssh client's session chatter (INFO "Server announced support …", WARN
   * "exceptionCaught … Server key did not validate") off the CLI's output: a failure is reported as
   * the fetch's error, which says more.
   */
  private static void quiet() {
    for (String name :
        List.of(
            "org.apache.sshd",
            "org.eclipse.jgit.internal.transport.sshd",
            "org.eclipse.jgit.transport.sshd")) {
      if (LoggerFactory.getLogger(name) instanceof Logger logger && logger.getLevel() == null) {
        logger.setLevel(Level.ERROR);
      }
    }
  }

  Path sshDir() {
    return sshDir;
  }

  /** Sets this ssh client on the transports JGit opens over ssh; forgets the last refusal. */
  TransportConfigCallback transports() {
    refusal.set(null);
    return transport -> {
      if (transport instanceof SshTransport ssh) {
        ssh.setSshSessionFactory(factory);
      }
    };
  }

  /**
   * Why the last host was refused, with how to fix it; null when no host key was refused since the
   * last {@link #transports()}.
   */
  String refusal() {
    return refusal.get();
  }

  @Override
  public void close() {
    factory.close();
  }

  private final class Factory extends SshdSessionFactory {
    @Override
    protected String getDefaultPreferredAuthentications() {
      return "publickey";
    }

    @Override
    protected ServerKeyDatabase createServerKeyDatabase(File homeDir, File sshDir) {
      return new KnownHostsOnly(super.createServerKeyDatabase(homeDir, sshDir));
    }
  }

  /** Accepts only the host keys the known_hosts files hold, and records why it refuses one. */
  private final class KnownHostsOnly implements ServerKeyDatabase {
    private final ServerKeyDatabase known;

    KnownHostsOnly(ServerKeyDatabase known) {
      this.known = known;
    }

    @Override
    public List<PublicKey> lookup(
        String connectAddress, InetSocketAddress remoteAddress, Configuration config) {
      return known.lookup(connectAddress, remoteAddress, config);
    }

    @Override
    public boolean accept(
        String connectAddress,
        InetSocketAddress remoteAddress,
        PublicKey serverKey,
        Configuration config,
        CredentialsProvider provider) {
      if (known.accept(connectAddress, remoteAddress, serverKey, strict(config), provider)) {
        return true;
      }
      boolean unknown = known.lookup(connectAddress, remoteAddress, config).isEmpty();
      refusal.set(explain(connectAddress, remoteAddress, serverKey, config, unknown));
      return false;
    }
  }

  private String explain(
      String connectAddress,
      InetSocketAddress remoteAddress,
      PublicKey serverKey,
      ServerKeyDatabase.Configuration config,
      boolean unknown) {
    String files = String.join(", ", knownHostsFiles(config));
    String fingerprint = KeyUtils.getFingerPrint(serverKey);
    String type = KeyUtils.getKeyType(serverKey);
    String host = connectAddress;
    int port = remoteAddress == null ? 22 : remoteAddress.getPort();
    if (host.startsWith("[") && host.contains("]")) {
      host = host.substring(1, host.indexOf(']'));
    }
    String keyscan =
        "ssh-keyscan " + (port == 22 ? "" : "-p " + port + " ") + host + " >> " + first(config);
    if (unknown) {
      return "the host key of "
          + connectAddress
          + " is not in the known hosts ("
          + files
          + "; the server offers "
          + type
          + " "
          + fingerprint
          + "), and an unknown host is never trusted. If that fingerprint is the server's, add"
          + " its key: "
          + keyscan
          + " (or connect once with ssh and accept it)";
    }
    return "the host key of "
        + connectAddress
        + " does not match the known hosts ("
        + files
        + "): the server offers "
        + type
        + " "
        + fingerprint
        + ". The server's key changed, or someone is intercepting the connection. If the"
        + " server's key was changed on purpose, remove the old entry (ssh-keygen -R "
        + (port == 22 ? host : "\"" + connectAddress + "\"")
        + " -f "
        + first(config)
        + ") and add the new one: "
        + keyscan;
  }

  /** The user's known hosts files: the config's UserKnownHostsFile, else the ssh directory's. */
  private List<String> knownHostsFiles(ServerKeyDatabase.Configuration config) {
    List<String> files = config.getUserKnownHostsFiles();
    if (files == null || files.isEmpty()) {
      return List.of(
          sshDir.resolve("known_hosts").toString(), sshDir.resolve("known_hosts2").toString());
    }
    return files.stream()
        .map(f -> f.startsWith("~/") ? home.resolve(f.substring(2)).toString() : f)
        .toList();
  }

  private String first(ServerKeyDatabase.Configuration config) {
    return knownHostsFiles(config).getFirst();
  }

  private static ServerKeyDatabase.Configuration strict(ServerKeyDatabase.Configuration config) {
    return new ServerKeyDatabase.Configuration() {
      @Override
      public List<String> getUserKnownHostsFiles() {
        return config.getUserKnownHostsFiles();
      }

      @Override
      public List<String> getGlobalKnownHostsFiles() {
        return config.getGlobalKnownHostsFiles();
      }

      @Override
      public StrictHostKeyChecking getStrictHostKeyChecking() {
        return StrictHostKeyChecking.REQUIRE_MATCH;
      }

      @Override
      public boolean getHashKnownHosts() {
        return config.getHashKnownHosts();
      }

      @Override
      public String getUsername() {
        return config.getUsername();
      }
    };
  }
}
