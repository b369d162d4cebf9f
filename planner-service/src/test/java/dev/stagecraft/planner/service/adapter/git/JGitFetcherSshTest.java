package dev.stagecraft.planner.service.adapter.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.source.FetchedConfiguration;
import dev.stagecraft.planner.service.source.GitAddresses;
import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.KnownGitHosts;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import dev.stagecraft.sshtestkit.GitDaemon;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JGitFetcher} with an SSH deploy key against a real OpenSSH sshd serving a repository
 * ({@code git-upload-pack} over ssh): the key authenticates, the server's key must be among the
 * tenant's known hosts (an unknown one is refused with its fingerprint), a key the server does not
 * accept is refused, and the key is in no message.
 */
class JGitFetcherSshTest {
  @TempDir static Path base;
  static OpenSshServer sshd;
  static RevCommit commit;
  static String url;

  @BeforeAll
  static void aRepositoryServedOverSsh() throws Exception {
    sshd = new OpenSshServer().start();
    Path repos = Files.createDirectories(base.resolve("repos"));
    try (Git git = GitDaemon.init(repos, "infra")) {
      commit =
          GitDaemon.commit(
              git, Map.of("deploy/main.tf", "resource \"null_resource\" \"a\" {}\n"), "first");
    }
    url =
        "ssh://"
            + sshd.user()
            + "@127.0.0.1:"
            + sshd.port()
            + repos.resolve("infra").resolve(".git").toAbsolutePath();
  }

  @AfterAll
  static void stop() throws Exception {
    if (sshd != null) {
      sshd.close();
    }
  }

  JGitFetcher fetcher(KnownGitHosts known, String dir) {
    return new JGitFetcher(base.resolve(dir), 30, known, GitAddresses.parse("127.0.0.0/8"));
  }

  static GitSource source(String key) {
    return new GitSource(url, "main", "deploy", new GitCredentials.SshKey(key), false);
  }

  KnownGitHosts trusting() throws Exception {
    String hostKey = sshd.hostKey();
    int port = sshd.port();
    return (tenant, host, p) ->
        "acme".equals(tenant) && "127.0.0.1".equals(host) && p == port
            ? List.of(hostKey)
            : List.of();
  }

  @Test
  void aDeployKeyFetchesFromAKnownHost() throws Exception {
    FetchedConfiguration fetched =
        fetcher(trusting(), "known").fetch("acme", source(sshd.ed25519Key()), null);

    assertThat(fetched.commit()).isEqualTo(commit.name());
    assertThat(fetched.files()).containsKey("main.tf");
  }

  @Test
  void theSshTransportConnectsToTheAddressTheCheckApproved() throws Exception {
    // a name no DNS resolves (RFC 6761), checked as loopback: only a transport that connects to
    // the checked address reaches the server (ADR 0082, PinnedAddresses)
    String host = "git-" + UUID.randomUUID() + ".invalid";
    String hostKey = sshd.hostKey();
    JGitFetcher fetcher =
        new JGitFetcher(
            base.resolve("pinned"),
            30,
            (tenant, h, p) -> host.equals(h) && p == sshd.port() ? List.of(hostKey) : List.of(),
            GitAddresses.parse("127.0.0.0/8"),
            h -> List.of(InetAddress.getLoopbackAddress()));
    GitSource source =
        new GitSource(
            url.replace("@127.0.0.1:", "@" + host + ":"),
            "main",
            "deploy",
            new GitCredentials.SshKey(sshd.ed25519Key()),
            false);

    assertThat(fetcher.fetch("acme", source, null).commit()).isEqualTo(commit.name());
  }

  @Test
  void anUnknownHostIsRefusedWithItsFingerprint() throws Exception {
    String key = sshd.ed25519Key();
    assertThatThrownBy(
            () -> fetcher(KnownGitHosts.NONE, "unknown").fetch("acme", source(key), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("not in the tenant's known hosts")
        .hasMessageContaining("SHA256:")
        .hasMessageContaining("stagecraft known-hosts add 127.0.0.1:" + sshd.port())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(keyBody(key)));
    // another tenant's known hosts do not count
    assertThatThrownBy(() -> fetcher(trusting(), "other").fetch("other", source(key), null))
        .hasMessageContaining("not in the tenant's known hosts");
  }

  @Test
  void aKeyTheServerDoesNotAcceptIsRefused() throws Exception {
    String wrong = sshd.unauthorizedKey();
    assertThatThrownBy(() -> fetcher(trusting(), "wrong").fetch("acme", source(wrong), null))
        .isInstanceOf(SourceUnavailable.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(keyBody(wrong)));
  }

  @Test
  void sshUrlsAndDeployKeysGoTogether() throws Exception {
    String key = sshd.ed25519Key();
    GitSource noKey = new GitSource(url, "main", "deploy", null, false);
    assertThatThrownBy(() -> fetcher(trusting(), "nokey").fetch("acme", noKey, null))
        .hasMessageContaining("needs an SSH deploy key");
    GitSource https =
        new GitSource(
            "https://git.example/acme/infra.git",
            "main",
            "",
            new GitCredentials.SshKey(key),
            false);
    assertThatThrownBy(() -> fetcher(trusting(), "https").fetch("acme", https, null))
        .hasMessageContaining("an SSH deploy key is used with an ssh URL");
    assertThatThrownBy(
            () -> fetcher(trusting(), "garbage").fetch("acme", source("not a key"), null))
        .hasMessageContaining("deploy key cannot be read")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not a key"));
  }

  /** A line of the key's base64 body: what any leak of the key would contain. */
  static String keyBody(String key) {
    return key.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();
  }
}
