package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.Diagnostics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Module calls are decoded and the modules they call loaded from the configuration's own files
 * (docs/adr/0065): local sources resolve against the caller's directory, inputs are checked against
 * the module's variables, and registry, remote, absolute, escaping, missing and cyclic sources are
 * errors at the call that say what to do.
 */
class ModuleTreeTest {
  @TempDir Path dir;

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
  void nestedLocalModulesLoadWithTheirAddressesDirectoriesAndInputs() throws Exception {
    write(
        "modules/app/main.tf",
        """
        variable "nodes" {}
        variable "port" { default = 22 }
        module "db" {
          source = "../db"
          name   = "app-db"
        }
        resource "null_resource" "deploy" {}
        """);
    write("modules/db/vars.tf", "variable \"name\" {}\nresource \"null_resource\" \"db\" {}\n");
    Diagnostics d = new Diagnostics();

    List<ModuleTree.Module> modules =
        load(
            """
            module "app" {
              source    = "./modules/app"
              nodes     = ["a", "b"]
              providers = {}
            }
            """,
            d);

    assertThat(d.errors()).isEmpty();
    assertThat(d.list())
        .singleElement()
        .satisfies(w -> assertThat(w.summary()).isEqualTo("Ignored providers argument"));
    assertThat(modules)
        .singleElement()
        .satisfies(
            app -> {
              assertThat(app.path()).isEqualTo("module.app");
              assertThat(app.dir()).isEqualTo("modules/app");
              assertThat(app.call().inputs()).containsOnlyKeys("nodes");
              assertThat(app.config().resources())
                  .extracting(ResourceDecl::address)
                  .containsExactly("null_resource.deploy");
              assertThat(app.children())
                  .singleElement()
                  .satisfies(
                      db -> {
                        assertThat(db.path()).isEqualTo("module.app.module.db");
                        assertThat(db.dir()).isEqualTo("modules/db");
                      });
            });
  }

  @Test
  void inputsMustMatchTheModulesVariables() throws Exception {
    write("modules/app/main.tf", "variable \"nodes\" {}\nvariable \"port\" { default = 22 }\n");
    Diagnostics d = new Diagnostics();

    load("module \"app\" {\n  source = \"./modules/app\"\n  nodez = []\n}\n", d);

    assertThat(d.errors())
        .extracting(e -> e.summary() + " @" + e.range())
        .containsExactlyInAnyOrder(
            "Unsupported argument @main.tf:3:3", "Missing required argument @main.tf:1:1");
    assertThat(d.errors())
        .anySatisfy(e -> assertThat(e.detail()).contains("declares no variable \"nodez\""))
        .anySatisfy(e -> assertThat(e.detail()).contains("variable \"nodes\" without a default"));
  }

  @Test
  void sourcesThatAreNotLocalFilesAreErrorsThatSayWhatToDo() throws Exception {
    write("modules/loop/main.tf", "module \"again\" {\n  source = \"./\"\n}\n");
    assertError(
        "module \"consul\" {\n  source = \"hashicorp/consul/aws\"\n  version = \"0.1.0\"\n}\n",
        "Module registry sources are not supported",
        "source = \"./modules/consul\"");
    assertError(
        "module \"k3s\" {\n  source = \"s3::https://s3.amazonaws.com/bucket/k3s.zip\"\n}\n",
        "Unsupported module source",
        "git::https://host/repo.git//dir?ref=v1.2");
    assertError(
        "module \"shared\" {\n  source = \"../shared/x\"\n}\n",
        "Module source outside the configuration",
        "leaves the configuration directory");
    assertError(
        "module \"abs\" {\n  source = \"/etc/modules/x\"\n}\n",
        "Invalid module source",
        "must begin with ./ or ../");
    assertError(
        "module \"none\" {\n  source = \"./modules/none\"\n}\n",
        "Unreadable module directory",
        "modules/none");
    assertError(
        "module \"loop\" {\n  source = \"./modules/loop\"\n}\n", "Module call cycle", "itself");
    assertError("module \"v\" {\n  source = var.x\n}\n", "Invalid module source", "literal string");
    assertError("module \"m\" {\n}\n", "Missing required argument", "\"source\" is required");
  }

  @Test
  void modulesThatCallEachOtherTwiceAtEveryLevelStopAtTheLimit() throws Exception {
    for (int level = 0; level < 12; level++) {
      write(
          "modules/l" + level + "/main.tf",
          level == 11
              ? "resource \"null_resource\" \"x\" {}\n"
              : "module \"a\" {\n  source = \"../l%d\"\n}\nmodule \"b\" {\n  source = \"../l%d\"\n}\n"
                  .formatted(level + 1, level + 1));
    }
    assertError(
        "module \"top\" {\n  source = \"./modules/l0\"\n}\n",
        "Too many modules",
        "more than 1000 modules");
  }

  @Test
  void aModuleFileCannotBeReadFromOutsideTheConfigurationThroughALink() throws Exception {
    Path outside = Files.createTempDirectory("outside-module");
    Files.writeString(outside.resolve("main.tf"), "resource \"null_resource\" \"x\" {}\n");
    Files.createDirectories(dir.resolve("modules"));
    Files.createSymbolicLink(dir.resolve("modules/linked"), outside);
    assertError(
        "module \"l\" {\n  source = \"./modules/linked\"\n}\n",
        "Unreadable module directory",
        "modules/linked");
  }

  private void assertError(String rootTf, String summary, String detail) {
    Diagnostics d = new Diagnostics();
    load(rootTf, d);
    assertThat(d.errors())
        .as(rootTf)
        .anySatisfy(
            (Diagnostic e) -> {
              assertThat(e.summary()).isEqualTo(summary);
              assertThat(e.detail()).contains(detail);
              assertThat(e.range()).isNotNull();
            });
  }
}
