package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.language.diag.Diagnostics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Git module sources (docs/adr/0065): parsed as Terraform writes them, read by the planner from the
 * reserved directory the CLI sends the repository's files under, never fetched by it; a missing or
 * invalid one is an error at the source argument that says how to fix it.
 */
class GitSourceTest {
  @TempDir Path dir;

  @Test
  void urlSubdirectoryAndRefAreSplitAsTerraformDoes() {
    GitSource s = GitSource.parse("git::https://example.com/infra.git//modules/vpc?ref=v1.2.0");
    assertThat(s.url()).isEqualTo("https://example.com/infra.git");
    assertThat(s.subdir()).isEqualTo("modules/vpc");
    assertThat(s.ref()).isEqualTo("v1.2.0");
    assertThat(s.packageAddress()).isEqualTo("git::https://example.com/infra.git?ref=v1.2.0");
    assertThat(s.directory()).matches("\\.stagecraft/modules/[0-9a-f]{16}/modules/vpc");
    assertThat(s.ssh()).isFalse();

    GitSource plain = GitSource.parse("git::ssh://git@example.com:2222/infra.git");
    assertThat(plain.url()).isEqualTo("ssh://git@example.com:2222/infra.git");
    assertThat(plain.subdir()).isEmpty();
    assertThat(plain.ref()).isEmpty();
    assertThat(plain.directory()).isEqualTo(plain.checkoutDirectory());
    assertThat(plain.ssh()).isTrue();

    GitSource scp = GitSource.parse("git::git@github.com:acme/infra.git//k3s?ref=main&depth=1");
    assertThat(scp.url()).isEqualTo("git@github.com:acme/infra.git");
    assertThat(scp.subdir()).isEqualTo("k3s");
    assertThat(scp.ref()).isEqualTo("main");
    assertThat(scp.ssh()).isTrue();

    GitSource daemon = GitSource.parse("git::git://127.0.0.1:9418/repo.git//dir/");
    assertThat(daemon.url()).isEqualTo("git://127.0.0.1:9418/repo.git");
    assertThat(daemon.subdir()).isEqualTo("dir");
  }

  @Test
  void callsOfOneRepositoryAndRefShareACheckoutWhateverTheirSubdirectory() {
    GitSource a = GitSource.parse("git::https://example.com/infra.git//a?ref=v1");
    GitSource b = GitSource.parse("git::https://example.com/infra.git//b?ref=v1");
    GitSource other = GitSource.parse("git::https://example.com/infra.git//a?ref=v2");
    assertThat(a.checkoutDirectory()).isEqualTo(b.checkoutDirectory());
    assertThat(other.checkoutDirectory()).isNotEqualTo(a.checkoutDirectory());
  }

  @Test
  void invalidSourcesSayWhatIsWrong() {
    assertInvalid("git::ftp://example.com/x.git", "scheme \"ftp\" is not one of");
    assertInvalid("git::https:///x.git", "no host");
    assertInvalid("git::https://example.com", "names no repository path");
    assertInvalid("git::example.com/x.git", "neither a URL");
    assertInvalid("git::https://example.com/x.git//a/../..", "not a plain path");
    assertInvalid("git::https://example.com/x.git?branch=main", "\"branch\" is not one of ref");
    assertInvalid("git::https://example.com/x.git?ref=", "ref has no value");
    assertInvalid("git::https://example.com/x.git?ref=a&ref=b", "ref is given twice");
    assertInvalid("git::https://example.com/x.git?depth=zero", "depth must be");
    assertThatThrownBy(() -> GitSource.parse("git::https://example.com/x.git?sshkey=AAAA"))
        .hasMessageContaining("does not take private keys");
    assertThatThrownBy(() -> GitSource.parse("git::https://me:s3cret@example.com/x.git"))
        .hasMessageContaining("~/.netrc")
        .hasMessageContaining("me:***@example.com")
        .hasMessageNotContaining("s3cret");
  }

  private static void assertInvalid(String source, String why) {
    assertThatThrownBy(() -> GitSource.parse(source))
        .isInstanceOf(GitSource.InvalidException.class)
        .hasMessageContaining(why)
        .hasMessageContaining("git::https://host/repo.git//dir?ref=v1.2");
  }

  private void write(String path, String text) throws IOException {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private List<ModuleTree.Module> load(String rootTf, Diagnostics d) {
    LoadResult root = ConfigLoader.load(Map.of("main.tf", rootTf));
    d.addAll(root.diagnostics());
    return ModuleTree.load(root.config(), ModuleTree.ModuleFiles.under(dir), d);
  }

  @Test
  void aFetchedGitModuleIsReadFromItsReservedDirectoryAndItsLocalCallsStayInside()
      throws Exception {
    String source = "git::git://127.0.0.1:9418/shared.git//modules/app?ref=v1";
    String checkout = GitSource.parse(source).checkoutDirectory();
    write(
        checkout + "/modules/app/main.tf",
        "module \"db\" {\n  source = \"../db\"\n}\nresource \"null_resource\" \"x\" {}\n");
    write(checkout + "/modules/db/main.tf", "resource \"null_resource\" \"db\" {}\n");
    Diagnostics d = new Diagnostics();

    List<ModuleTree.Module> modules =
        load("module \"shared\" {\n  source = \"" + source + "\"\n}\n", d);

    assertThat(d.errors()).isEmpty();
    assertThat(modules)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.path()).isEqualTo("module.shared");
              assertThat(m.dir()).isEqualTo(checkout + "/modules/app");
              assertThat(m.children())
                  .singleElement()
                  .satisfies(db -> assertThat(db.dir()).isEqualTo(checkout + "/modules/db"));
            });
  }

  @Test
  void aGitModuleCannotCallALocalModuleOutsideItsRepository() throws Exception {
    String source = "git::https://example.com/shared.git";
    String checkout = GitSource.parse(source).checkoutDirectory();
    write(checkout + "/main.tf", "module \"root\" {\n  source = \"../../../modules/x\"\n}\n");
    write("modules/x/main.tf", "resource \"null_resource\" \"x\" {}\n");
    Diagnostics d = new Diagnostics();

    load("module \"shared\" {\n  source = \"" + source + "\"\n}\n", d);

    assertThat(d.errors())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.summary()).isEqualTo("Module source outside its git repository");
              assertThat(e.range().toString()).isEqualTo(checkout + "/main.tf:2:12");
            });
  }

  @Test
  void aGitModuleWhoseFilesWereNotSentIsAnErrorAtItsSourceThatSaysHowToFixIt() {
    String source = "git::https://example.com/shared.git//k3s?ref=v1";
    Diagnostics d = new Diagnostics();

    load("module \"shared\" {\n  source = \"" + source + "\"\n}\n", d);

    assertThat(d.errors())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.summary()).isEqualTo("Git module not fetched");
              assertThat(e.range().toString()).isEqualTo("main.tf:2:12");
              assertThat(e.detail())
                  .contains(source)
                  .contains("Run stagecraft plan or apply from the CLI, which fetches git modules")
                  .contains("send the module's files under " + GitSource.parse(source).directory());
            });
  }

  @Test
  void anInvalidGitSourceIsAnErrorAtItsSource() {
    Diagnostics d = new Diagnostics();

    load("module \"shared\" {\n  source = \"git::https://example.com/x.git?tag=v1\"\n}\n", d);

    assertThat(d.errors())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.summary()).isEqualTo("Invalid git module source");
              assertThat(e.range().toString()).isEqualTo("main.tf:2:12");
              assertThat(e.detail()).contains("\"tag\" is not one of ref");
            });
  }
}
