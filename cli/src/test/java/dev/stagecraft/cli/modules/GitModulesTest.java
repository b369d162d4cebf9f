package dev.stagecraft.cli.modules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.language.config.GitSource;
import dev.stagecraft.sshtestkit.GitDaemon;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI fetches git modules from a real {@code git daemon} (docs/adr/0065): by tag and by branch,
 * pins the commit in {@code .stagecraft/modules.lock.json}, reuses the pin when the branch moves
 * until {@code -upgrade}, reads a pinned commit from the cache without the network, and says at the
 * source what is wrong with a missing ref or a pinned commit that is gone.
 */
class GitModulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private Path repos;
  private Path config;
  private Map<String, String> env;
  private GitDaemon daemon;
  private Git git;
  private RevCommit first;
  private RevCommit second;

  @BeforeEach
  void repository() throws Exception {
    repos = Files.createDirectories(tmp.resolve("repos"));
    config = Files.createDirectories(tmp.resolve("config"));
    env = Map.of("XDG_CACHE_HOME", tmp.resolve("cache").toString(), "HOME", tmp.toString());
    git = GitDaemon.init(repos, "shared.git");
    first = GitDaemon.commit(git, "modules/app/main.tf", app("one"));
    git.tag().setName("v1").setAnnotated(true).setMessage("v1").call();
    second = GitDaemon.commit(git, "modules/app/main.tf", app("two"));
    daemon = GitDaemon.start(repos);
  }

  @AfterEach
  void stop() throws Exception {
    git.close();
    if (daemon != null) {
      daemon.close();
    }
  }

  private static String app(String version) {
    return "resource \"null_resource\" \"x\" {\n  triggers = { v = \"" + version + "\" }\n}\n";
  }

  private String source(String ref) {
    return "git::"
        + daemon.url("shared.git")
        + "//modules/app"
        + (ref == null ? "" : "?ref=" + ref);
  }

  private Map<String, String> root(String source) {
    return Map.of("main.tf", "module \"shared\" {\n  source = \"" + source + "\"\n}\n");
  }

  private List<String> prepare(String source, boolean upgrade) throws Exception {
    return GitModules.prepare(config, env, root(source), upgrade);
  }

  private String fetched(String source) throws Exception {
    return Files.readString(config.resolve(GitSource.parse(source).directory()).resolve("main.tf"));
  }

  private Map<String, String> lock() throws Exception {
    Map<String, String> out = new java.util.TreeMap<>();
    JSON.readTree(config.resolve(".stagecraft/modules.lock.json").toFile())
        .path("modules")
        .fields()
        .forEachRemaining(e -> out.put(e.getKey(), e.getValue().path("commit").asText()));
    return out;
  }

  @Test
  void aTagIsFetchedPinnedCachedAndItsFilesPutWhereThePlannerReadsThem() throws Exception {
    String source = source("v1");

    List<String> dirs = prepare(source, false);

    assertThat(dirs).containsExactly(GitSource.parse(source).checkoutDirectory());
    assertThat(fetched(source)).isEqualTo(app("one"));
    String pkg = GitSource.parse(source).packageAddress();
    assertThat(lock()).containsExactly(Map.entry(pkg, first.name()));
    assertThat(tmp.resolve("cache/stagecraft/modules/" + first.name() + "/modules/app/main.tf"))
        .hasContent(app("one"));
  }

  @Test
  void regularAndExecutableFilesAreWrittenSymlinksAndHiddenFilesAreNot() throws Exception {
    Path work = git.getRepository().getWorkTree().toPath().resolve("modules/app");
    Files.writeString(work.resolve("run.sh"), "#!/bin/sh\ntrue\n");
    assertThat(work.resolve("run.sh").toFile().setExecutable(true)).isTrue();
    Files.createSymbolicLink(work.resolve("link.tf"), Path.of("main.tf"));
    Files.writeString(work.resolve(".hidden.tf"), app("hidden"));
    GitDaemon.commit(git, "modules/app/README", "files of every mode\n");
    String source = source("main");

    prepare(source, false);

    Path dir = config.resolve(GitSource.parse(source).directory());
    assertThat(dir.resolve("main.tf")).hasContent(app("two"));
    assertThat(Files.isExecutable(dir.resolve("main.tf"))).as("a regular file").isFalse();
    assertThat(dir.resolve("run.sh")).hasContent("#!/bin/sh\ntrue\n");
    assertThat(Files.isExecutable(dir.resolve("run.sh"))).as("an executable file").isTrue();
    assertThat(dir.resolve("README")).exists();
    assertThat(dir.resolve("link.tf")).as("a symbolic link is not sent").doesNotExist();
    assertThat(dir.resolve(".hidden.tf")).as("a hidden file is not sent").doesNotExist();
  }

  @Test
  void aBranchPinIsReusedWhenTheBranchMovesUntilUpgrade() throws Exception {
    String source = source("main");
    prepare(source, false);
    assertThat(fetched(source)).isEqualTo(app("two"));
    assertThat(lock()).containsValue(second.name());

    RevCommit third = GitDaemon.commit(git, "modules/app/main.tf", app("three"));
    prepare(source, false);
    assertThat(fetched(source)).as("the pin is kept").isEqualTo(app("two"));
    assertThat(lock()).containsValue(second.name());

    prepare(source, true);
    assertThat(fetched(source)).as("-upgrade moves the pin").isEqualTo(app("three"));
    assertThat(lock())
        .containsExactly(Map.entry(GitSource.parse(source).packageAddress(), third.name()));
  }

  @Test
  void theRemoteHeadIsTheDefaultAndACommitIdIsARef() throws Exception {
    prepare(source(null), false);
    assertThat(fetched(source(null))).isEqualTo(app("two"));

    String byCommit = source(first.name().substring(0, 12));
    prepare(byCommit, false);
    assertThat(fetched(byCommit)).isEqualTo(app("one"));
    assertThat(lock()).containsEntry(GitSource.parse(byCommit).packageAddress(), first.name());
  }

  @Test
  void aPinnedCommitInTheCacheIsUsedWithoutTheNetwork() throws Exception {
    String source = source("v1");
    prepare(source, false);
    daemon.close();
    daemon = null;
    Path checkout = config.resolve(GitSource.parse(source).checkoutDirectory());
    GitFetcher.delete(checkout);

    prepare(source, false);

    assertThat(fetched(source)).isEqualTo(app("one"));
    assertThat(lock()).containsValue(first.name());
  }

  @Test
  void aMissingRefIsAnErrorAtTheSourceNamingTheBranchesAndTags() {
    assertThatThrownBy(() -> prepare(source("v9"), false))
        .isInstanceOf(GitModules.Failure.class)
        .hasMessageContaining("Error: Cannot fetch git module")
        .hasMessageContaining("(main.tf:2:12)")
        .hasMessageContaining("The ref \"v9\" of")
        .hasMessageContaining("branches: main; tags: v1")
        .hasMessageContaining("Fix ref in the source");
    assertThat(config.resolve(".stagecraft/modules.lock.json")).doesNotExist();
  }

  @Test
  void aPinnedCommitThatNoLongerExistsUpstreamIsAnErrorThatSaysToUpgrade() throws Exception {
    String source = source("main");
    String gone = "0123456789abcdef0123456789abcdef01234567";
    Files.createDirectories(config.resolve(".stagecraft"));
    Files.writeString(
        config.resolve(".stagecraft/modules.lock.json"),
        "{\"version\":1,\"modules\":{\""
            + GitSource.parse(source).packageAddress()
            + "\":{\"commit\":\""
            + gone
            + "\"}}}");

    assertThatThrownBy(() -> prepare(source, false))
        .isInstanceOf(GitModules.Failure.class)
        .hasMessageContaining("Error: Pinned git module commit not found")
        .hasMessageContaining("(main.tf:2:12)")
        .hasMessageContaining(gone)
        .hasMessageContaining("Run with -upgrade");

    prepare(source, true);
    assertThat(lock()).containsValue(second.name());
  }

  @Test
  void modulesCalledFromLocalAndGitModulesAreFetchedToo() throws Exception {
    GitDaemon.commit(
        git,
        "modules/app/main.tf",
        "module \"db\" {\n  source = \"../db\"\n}\nmodule \"other\" {\n  source = \""
            + "git::"
            + daemon.url("shared.git")
            + "//modules/db?ref=v1"
            + "\"\n}\n");
    GitDaemon.commit(git, "modules/db/main.tf", "resource \"null_resource\" \"db\" {}\n");
    Files.createDirectories(config.resolve("modules/wrap"));
    Files.writeString(
        config.resolve("modules/wrap/main.tf"),
        "module \"shared\" {\n  source = \"" + source("main") + "\"\n}\n");

    List<String> dirs =
        GitModules.prepare(
            config,
            env,
            Map.of("main.tf", "module \"wrap\" {\n  source = \"./modules/wrap\"\n}\n"),
            false);

    assertThat(dirs)
        .containsExactly(
            GitSource.parse(source("main")).checkoutDirectory(),
            GitSource.parse("git::" + daemon.url("shared.git") + "//modules/db?ref=v1")
                .checkoutDirectory());
    assertThat(lock()).hasSize(2);
  }
}
