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
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JGitFetcher} against a real {@code git daemon} on loopback serving a repository with two
 * commits on {@code main} (the configuration in {@code deploy/}, a README outside it) and a tag on
 * the first.
 */
class JGitFetcherTest {
  @TempDir static Path base;

  static GitDaemon daemon;
  static RevCommit first;
  static RevCommit second;
  static String url;

  @BeforeAll
  static void aRepositoryWithTwoCommitsAndATag() throws Exception {
    Path repos = Files.createDirectories(base.resolve("repos"));
    try (Git git = GitDaemon.init(repos, "infra")) {
      first =
          GitDaemon.commit(
              git,
              Map.of(
                  "deploy/main.tf", "resource \"null_resource\" \"a\" { triggers = { v = \"1\" } }",
                  "deploy/scripts/setup.sh", "#!/bin/sh\necho one\n",
                  "deploy/.hidden", "not sent",
                  "README.md", "outside the directory"),
              "first");
      PersonIdent who = new PersonIdent("Test", "test@example.com");
      git.tag().setName("v1").setObjectId(first).setAnnotated(true).setTagger(who).call();
      second =
          GitDaemon.commit(
              git,
              Map.of(
                  "deploy/main.tf",
                  "resource \"null_resource\" \"a\" { triggers = { v = \"2\" } }"),
              "second");
    }
    daemon = GitDaemon.start(repos);
    url = daemon.url("infra");
  }

  @AfterAll
  static void stop() throws InterruptedException {
    daemon.close();
  }

  private static JGitFetcher fetcher(String name) {
    return new JGitFetcher(
        base.resolve(name), 10, KnownGitHosts.NONE, GitAddresses.parse("127.0.0.0/8"));
  }

  private static GitSource source(String url, String ref, String directory) {
    return new GitSource(url, ref, directory, new GitCredentials.None(), false);
  }

  @Test
  void theBranchTipIsFetchedWithTheDirectorysFilesOnly() throws Exception {
    FetchedConfiguration c = fetcher("tip").fetch("acme", source(url, "main", "deploy"), null);

    assertThat(c.commit()).isEqualTo(second.name());
    assertThat(c.ref()).isEqualTo("refs/heads/main");
    assertThat(c.files()).containsOnlyKeys("main.tf");
    assertThat(c.files().get("main.tf")).contains("v = \"2\"");
    assertThat(c.supportFiles()).containsOnlyKeys("scripts/setup.sh");
    assertThat(new String(c.supportFiles().get("scripts/setup.sh"), StandardCharsets.UTF_8))
        .contains("echo one");
  }

  @Test
  void anOlderCommitIsFetchedByItsIdOrAPrefix() throws Exception {
    JGitFetcher fetcher = fetcher("older");
    FetchedConfiguration byId =
        fetcher.fetch("acme", source(url, "refs/heads/main", "deploy/"), first.name());
    assertThat(byId.commit()).isEqualTo(first.name());
    assertThat(byId.files().get("main.tf")).contains("v = \"1\"");
    try (Repository cache = bare(fetcher.cacheOf("acme", url))) {
      // fetched by its id, alone: not through the branch
      assertThat(cache.exactRef("refs/stagecraft/commits/" + first.name())).isNotNull();
      assertThat(cache.getRefDatabase().getRefsByPrefix("refs/stagecraft/follow/")).isEmpty();
      assertThat(cache.getObjectDatabase().has(second)).isFalse();
    }

    FetchedConfiguration byPrefix =
        fetcher("prefix")
            .fetch("acme", source(url, "main", "deploy"), first.name().substring(0, 8));
    assertThat(byPrefix.commit()).isEqualTo(first.name());
  }

  @Test
  void aServerThatWillNotServeACommitByIdIsSearchedThroughTheBranch() throws Exception {
    JGitFetcher fetcher = fetcher("fallback");
    Path dir = fetcher.cacheOf("acme", url);
    // protocol v0: git daemon then refuses a want of a commit no ref points to
    try (Repository cache = bare(dir)) {
      cache.create(true);
      cache.getConfig().setInt("protocol", null, "version", 0);
      cache.getConfig().save();
    }

    FetchedConfiguration c = fetcher.fetch("acme", source(url, "main", "deploy"), first.name());

    assertThat(c.commit()).isEqualTo(first.name());
    assertThat(c.files().get("main.tf")).contains("v = \"1\"");
    try (Repository cache = bare(dir)) {
      assertThat(cache.exactRef("refs/stagecraft/follow/refs/heads/main")).isNotNull();
    }
  }

  private static Repository bare(Path dir) throws IOException {
    return new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().build();
  }

  @Test
  void aTagIsPeeledToItsCommit() throws Exception {
    FetchedConfiguration c =
        fetcher("tag").fetch("acme", source(url, "refs/tags/v1", "deploy"), null);

    assertThat(c.commit()).isEqualTo(first.name());
    assertThat(c.ref()).isEqualTo("refs/tags/v1");
    assertThat(c.files().get("main.tf")).contains("v = \"1\"");
  }

  @Test
  void aMissingBranchOrCommitOrDirectoryIsNamed() {
    assertThatThrownBy(() -> fetcher("missing").fetch("acme", source(url, "nope", "deploy"), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("branch 'nope' does not exist in " + url)
        .hasMessageContaining("branches main");
    assertThatThrownBy(
            () -> fetcher("missing").fetch("acme", source(url, "main", "deploy"), "1".repeat(40)))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("commit " + "1".repeat(40) + " does not exist in " + url);
    assertThatThrownBy(() -> fetcher("missing").fetch("acme", source(url, "main", "docs"), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("directory 'docs'")
        .hasMessageContaining("holds no .tf file");
    String nowhere = url.replace("/infra", "/nothere");
    assertThatThrownBy(() -> fetcher("missing").fetch("acme", source(nowhere, "main", ""), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("repository " + nowhere + " does not exist")
        .hasMessageContaining("check the URL");
  }

  @Test
  void anUnreachableRepositorySaysSo() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String gone = "git://127.0.0.1:" + closed + "/infra";

    assertThatThrownBy(() -> fetcher("gone").fetch("acme", source(gone, "main", ""), null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("repository " + gone + " cannot be reached: ")
        .hasMessageContaining("check the URL and that the planner can reach it");
  }

  @Test
  void localRepositoriesAreRefused() {
    Path local = base.resolve("repos").resolve("infra");
    for (String refused : new String[] {"file://" + local, local.toString()}) {
      assertThatThrownBy(() -> fetcher("local").fetch("acme", source(refused, "main", ""), null))
          .isInstanceOf(SourceUnavailable.class)
          .hasMessageContaining("must use https, http, ssh or git")
          .hasMessageContaining("is not allowed");
    }
    assertThat(base.resolve("local").resolve("git")).doesNotExist();
  }

  @Test
  void anSshKeyIsRefusedWithAGitUrl() {
    GitSource withKey =
        new GitSource(url, "main", "deploy", new GitCredentials.SshKey("KEY"), false);
    assertThatThrownBy(() -> fetcher("ssh").fetch("acme", withKey, null))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("an SSH deploy key is used with an ssh URL")
        .hasMessageNotContaining("KEY");
  }

  @Test
  void aCachedCommitIsReadWithoutTheServer() throws Exception {
    Path repos = Files.createDirectories(base.resolve("own-repos"));
    RevCommit only;
    try (Git git = GitDaemon.init(repos, "app")) {
      only = GitDaemon.commit(git, "main.tf", "variable \"x\" {}");
    }
    JGitFetcher fetcher = fetcher("cached");
    String appUrl;
    try (GitDaemon own = GitDaemon.start(repos)) {
      appUrl = own.url("app");
      assertThat(fetcher.fetch("acme", source(appUrl, "main", ""), null).commit())
          .isEqualTo(only.name());
      long objects = objectFiles(fetcher.cacheOf("acme", appUrl));
      fetcher.fetch("acme", source(appUrl, "main", ""), null);
      assertThat(objectFiles(fetcher.cacheOf("acme", appUrl))).isEqualTo(objects);
    }

    // the daemon is gone: the commit comes from the cache alone
    FetchedConfiguration again = fetcher.fetch("acme", source(appUrl, "main", ""), only.name());
    assertThat(again.files()).containsOnlyKeys("main.tf");
    // another tenant has a cache of its own, so it must reach the server
    assertThatThrownBy(() -> fetcher.fetch("other", source(appUrl, "main", ""), only.name()))
        .isInstanceOf(SourceUnavailable.class)
        .hasMessageContaining("cannot be reached");
  }

  private static long objectFiles(Path repo) throws IOException {
    try (Stream<Path> files = Files.walk(repo.resolve("objects"))) {
      return files.filter(Files::isRegularFile).count();
    }
  }
}
