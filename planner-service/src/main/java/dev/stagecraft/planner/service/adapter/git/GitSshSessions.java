package dev.stagecraft.planner.service.adapter.git;

import dev.stagecraft.planner.service.source.KnownGitHosts;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.AuthorizedKeyEntry;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.sshd.ServerKeyDatabase;
import org.eclipse.jgit.transport.sshd.SshdSessionFactory;
import org.eclipse.jgit.transport.sshd.SshdSessionFactoryBuilder;

/**
 * The SSH side of a git source with a deploy key (ADR 0078): one JGit session factory per fetch,
 * which authenticates with the deploy key only (held in memory, never written), reads no ssh
 * configuration, agent or key file of the planner's user (its home and ssh directories are an empty
 * directory of its own), and accepts a server only when it presents a key of the tenant's known
 * hosts for that host and port ({@link KnownGitHosts}): an unknown or changed key is refused with
 * its fingerprint and what to do.
 *
 * <p>Not thread-safe: one instance per fetch, closed after it.
 */
final class GitSshSessions implements AutoCloseable {
  private final Path home;
  private final SshdSessionFactory factory;
  private final AtomicReference<String> refusal = new AtomicReference<>();

  private GitSshSessions(Path home, KeyPair key, String tenant, KnownGitHosts known) {
    this.home = home;
    this.factory =
        new SshdSessionFactoryBuilder()
            .setHomeDirectory(home.toFile())
            .setSshDirectory(home.toFile())
            .setConfigStoreFactory((h, f, u) -> null)
            .setDefaultIdentities(dir -> List.of())
            .setDefaultKnownHostsFiles(dir -> List.of())
            .setDefaultKeysProvider(dir -> List.of(key))
            .setPreferredAuthentications("publickey")
            .setServerKeyDatabase((h, s) -> new TenantHosts(tenant, known))
            .build(null);
  }

  /**
   * Sessions authenticating with {@code privateKey} (an OpenSSH or PEM private key without a
   * passphrase), trusting {@code tenant}'s known hosts.
   *
   * @throws SourceUnavailable the key cannot be read
   */
  static GitSshSessions open(String privateKey, String tenant, KnownGitHosts known)
      throws SourceUnavailable {
    KeyPair key = keyPair(privateKey);
    try {
      return new GitSshSessions(
          Files.createTempDirectory("stagecraft-git-ssh-"), key, tenant, known);
    } catch (IOException e) {
      throw new SourceUnavailable(
          "the planner could not prepare an ssh session: " + e.getMessage());
    }
  }

  SshdSessionFactory factory() {
    return factory;
  }

  /** Why the last server key was refused (null when none was). */
  String refusal() {
    return refusal.get();
  }

  @Override
  public void close() {
    factory.close();
    try {
      Files.deleteIfExists(home);
    } catch (IOException e) {
      // an empty directory in the temp directory: harmless
    }
  }

  private static KeyPair keyPair(String privateKey) throws SourceUnavailable {
    String why = "no key in it";
    try {
      Iterable<KeyPair> pairs =
          SecurityUtils.loadKeyPairIdentities(
              null,
              NamedResource.ofName("deploy key"),
              new ByteArrayInputStream(privateKey.getBytes(StandardCharsets.UTF_8)),
              null);
      if (pairs != null) {
        for (KeyPair pair : pairs) {
          return pair;
        }
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      // the message of a key parser may quote the key: only its kind is shown
      why = e.getClass().getSimpleName();
    }
    throw new SourceUnavailable(
        "the source's SSH deploy key cannot be read ("
            + why
            + "): give an OpenSSH or PEM private key without a passphrase (set it again with PUT"
            + " /api/v1/workspaces/{ws}/source)");
  }

  /** Accepts a server key only when the tenant's known hosts hold it for that host and port. */
  private final class TenantHosts implements ServerKeyDatabase {
    private final String tenant;
    private final KnownGitHosts known;

    TenantHosts(String tenant, KnownGitHosts known) {
      this.tenant = tenant;
      this.known = known;
    }

    @Override
    public List<PublicKey> lookup(
        String connectAddress, InetSocketAddress remoteAddress, Configuration config) {
      return keys(remoteAddress);
    }

    @Override
    public boolean accept(
        String connectAddress,
        InetSocketAddress remoteAddress,
        PublicKey serverKey,
        Configuration config,
        CredentialsProvider provider) {
      List<PublicKey> trusted = keys(remoteAddress);
      for (PublicKey k : trusted) {
        if (KeyUtils.compareKeys(k, serverKey)) {
          return true;
        }
      }
      String where = remoteAddress.getHostString() + ":" + remoteAddress.getPort();
      String fingerprint = KeyUtils.getFingerPrint(serverKey);
      refusal.set(
          (trusted.isEmpty()
                  ? "the git server " + where + " is not in the tenant's known hosts"
                  : "the git server "
                      + where
                      + " presented a key the tenant's known hosts do not hold")
              + " (its key: "
              + fingerprint
              + "); if that is the server's key, add it: stagecraft known-hosts add "
              + where
              + " '<its public key line>'");
      return false;
    }

    private List<PublicKey> keys(InetSocketAddress address) {
      List<PublicKey> out = new ArrayList<>();
      for (String line : known.publicKeys(tenant, address.getHostString(), address.getPort())) {
        try {
          out.add(
              AuthorizedKeyEntry.parseAuthorizedKeyEntry(line)
                  .resolvePublicKey(null, PublicKeyEntryResolver.IGNORING));
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
          // a key line this client cannot read trusts nothing
        }
      }
      return out;
    }
  }
}
