package dev.stagecraft.cli.modules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.language.config.GitSource;
import dev.stagecraft.sshtestkit.GitDaemon;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.RefSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The CLI fetches git modules over ssh from a real OpenSSH server (which runs {@code
 * git-upload-pack} for the session user) with the keys, config and known hosts of the ssh directory
 * {@code STAGECRAFT_SSH_DIR} names (never the real {@code ~/.ssh}): by tag over {@code ssh://} and
 * over the scp-like {@code user@host:path} (the port from the ssh config), pinned and cached as
 * over the other transports; an unknown or changed host key is refused, saying how to add it, and a
 * key the server does not authorize is an authentication error naming the keys tried.
 */
class GitSshModulesTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private Path bare;
  private Path config;
  private Path ssh;
  private Map<String, String> env;
  private Git git;
  private RevCommit first;

  @BeforeEach
  void repository() throws Exception {
    Path repos = Files.createDirectories(tmp.resolve("repos"));
    config = Files.createDirectories(tmp.resolve("config"));
    ssh = Files.createDirectories(tmp.resolve("ssh"));
    env =
        Map.of(
            "XDG_CACHE_HOME",
            tmp.resolve("cache").toString(),
            "HOME",
            tmp.toString(),
            GitSsh.SSH_DIR_VARIABLE,
            ssh.toString());
    git = GitDaemon.init(repos, "work");
    first = GitDaemon.commit(git, "modules/app/main.tf", app("one"));
    git.tag().setName("v1").setAnnotated(true).setMessage("v1").call();
    GitDaemon.commit(git, "modules/app/main.tf", app("two"));
    bare = repos.resolve("shared.git");
    Git.init().setBare(true).setDirectory(bare.toFile()).setInitialBranch("main").call().close();
    git.push()
        .setRemote(bare.toUri().toString())
        .setRefSpecs(
            new RefSpec("refs/heads/*:refs/heads/*"), new RefSpec("refs/tags/*:refs/tags/*"))
        .call();
    key(SSHD.ed25519Key());
    knownHosts("[127.0.0.1]:" + SSHD.port() + " " + SSHD.hostKey());
  }

  @AfterEach
  void close() {
    git.close();
  }

  private void key(String text) throws Exception {
    Path key = ssh.resolve("id_ed25519");
    Files.writeString(key, text);
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
  }

  private void knownHosts(String text) throws Exception {
    Files.writeString(ssh.resolve("known_hosts"), text.isEmpty() ? "" : text + "\n");
  }

  private static String app(String version) {
    return "resource \"null_resource\" \"x\" {\n  triggers = { v = \"" + version + "\" }\n}\n";
  }

  private String sshSource() {
    return "git::ssh://"
        + SSHD.user()
        + "@127.0.0.1:"
        + SSHD.port()
        + bare
        + "//modules/app?ref=v1";
  }

  private List<String> prepare(String source) throws Exception {
    return GitModules.prepare(
        config,
        env,
        Map.of("main.tf", "module \"shared\" {\n  source = \"" + source + "\"\n}\n"),
        false);
  }

  private String fetched(String source) throws Exception {
    return Files.readString(config.resolve(GitSource.parse(source).directory()).resolve("main.tf"));
  }

  private Map<String, String> lock() throws Exception {
    Map<String, String> out = new TreeMap<>();
    JSON.readTree(config.resolve(".stagecraft/modules.lock.json").toFile())
        .path("modules")
        .fields()
        .forEachRemaining(e -> out.put(e.getKey(), e.getValue().path("commit").asText()));
    return out;
  }

  @Test
  void aTagIsFetchedOverSshWithTheKeysOfTheSshDirectoryPinnedAndCached() throws Exception {
    String source = sshSource();

    List<String> dirs = prepare(source);

    assertThat(dirs).containsExactly(GitSource.parse(source).checkoutDirectory());
    assertThat(fetched(source)).isEqualTo(app("one"));
    assertThat(lock())
        .containsExactly(Map.entry(GitSource.parse(source).packageAddress(), first.name()));
    assertThat(tmp.resolve("cache/stagecraft/modules/" + first.name() + "/modules/app/main.tf"))
        .hasContent(app("one"));
    assertThat(LoggerFactory.getLogger("org.apache.sshd.client").isWarnEnabled())
        .as("the ssh client's session chatter stays off the CLI's output")
        .isFalse();

    // the pinned commit comes from the cache: no connection (the server's key is no longer trusted)
    knownHosts("");
    GitFetcher.delete(config.resolve(GitSource.parse(source).checkoutDirectory()));
    prepare(source);
    assertThat(fetched(source)).isEqualTo(app("one"));
  }

  @Test
  void theScpLikeFormIsFetchedWithTheHostPortAndUserOfTheSshConfig() throws Exception {
    Files.writeString(
        ssh.resolve("config"),
        "Host modules-host\n  HostName 127.0.0.1\n  Port " + SSHD.port() + "\n");
    String source = "git::" + SSHD.user() + "@modules-host:" + bare + "//modules/app?ref=v1";

    prepare(source);

    assertThat(fetched(source)).isEqualTo(app("one"));
    assertThat(lock())
        .containsExactly(Map.entry(GitSource.parse(source).packageAddress(), first.name()));
  }

  @Test
  void anUnknownHostKeyIsRefusedEvenWhenTheSshConfigSaysNotToCheckAndSaysHowToAddIt()
      throws Exception {
    knownHosts("");
    Files.writeString(ssh.resolve("config"), "Host *\n  StrictHostKeyChecking no\n");

    assertThatThrownBy(() -> prepare(sshSource()))
        .isInstanceOf(GitModules.Failure.class)
        .hasMessageContaining("Error: Cannot fetch git module")
        .hasMessageContaining("(main.tf:2:12)")
        .hasMessageContaining(
            "the host key of [127.0.0.1]:" + SSHD.port() + " is not in the known hosts")
        .hasMessageContaining("SHA256:")
        .hasMessageContaining(
            "ssh-keyscan -p " + SSHD.port() + " 127.0.0.1 >> " + ssh.resolve("known_hosts"));
    assertThat(ssh.resolve("known_hosts")).isEmptyFile();
    assertThat(config.resolve(".stagecraft/modules.lock.json")).doesNotExist();
  }

  @Test
  void aChangedHostKeyIsRefusedSayingSo() throws Exception {
    knownHosts("[127.0.0.1]:" + SSHD.port() + " " + SSHD.otherHostKey());

    assertThatThrownBy(() -> prepare(sshSource()))
        .isInstanceOf(GitModules.Failure.class)
        .hasMessageContaining("Error: Cannot fetch git module")
        .hasMessageContaining("the host key of [127.0.0.1]:" + SSHD.port() + " does not match")
        .hasMessageContaining("ssh-keygen -R");
    assertThat(config.resolve(".stagecraft/modules.lock.json")).doesNotExist();
  }

  @Test
  void aKeyWithAPassphraseIsNotUsedAndNeverPromptedFor() throws Exception {
    Process p =
        new ProcessBuilder(
                "ssh-keygen",
                "-q",
                "-p",
                "-P",
                "",
                "-N",
                "a passphrase",
                "-f",
                ssh.resolve("id_ed25519").toString())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
    assertThat(Files.readString(ssh.resolve("id_ed25519"))).isNotEqualTo(SSHD.ed25519Key());

    assertThatThrownBy(() -> prepare(sshSource()))
        .isInstanceOf(GitModules.Failure.class)
        .hasMessageContaining("Error: Cannot fetch git module")
        .hasMessageContaining(
            "the ssh server refused to log in " + SSHD.user() + "@127.0.0.1:" + SSHD.port())
        .hasMessageContaining("tried: id_ed25519 (has a passphrase: not used)")
        .hasMessageContaining("keys with a passphrase and ssh-agent are not used");
  }

  @Test
  void aKeyTheServerDoesNotAuthorizeIsAnAuthenticationErrorNamingTheKeysTried() throws Exception {
    key(SSHD.unauthorizedKey());

    assertThatThrownBy(() -> prepare(sshSource()))
        .isInstanceOf(GitModules.Failure.class)
        .hasMessageContaining("Error: Cannot fetch git module")
        .hasMessageContaining("(main.tf:2:12)")
        .hasMessageContaining(
            "the ssh server refused to log in " + SSHD.user() + "@127.0.0.1:" + SSHD.port())
        .hasMessageContaining("tried: id_ed25519,")
        .hasMessageContaining(ssh.resolve("id_ed25519.pub").toString());
    assertThat(config.resolve(".stagecraft/modules.lock.json")).doesNotExist();
  }
}
