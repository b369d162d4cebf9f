package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemoteStateBlocksTest {

  private static LoadResult load(String text) {
    return ConfigLoader.load("main.tf", text);
  }

  private static List<String> errors(String text) {
    return load(text).diagnostics().errors().stream()
        .map(d -> d.summary() + " @" + d.range())
        .toList();
  }

  @Test
  void decodesBothBackendsWithTheirArguments() {
    LoadResult r =
        load(
            """
            data "terraform_remote_state" "net" {
              backend = "stagecraft"
              config  = { workspace = "network" }
            }
            data "terraform_remote_state" "db" {
              backend   = "http"
              config    = { address = var.db_state }
              workspace = "default"
              defaults  = { port = 5432 }
            }
            variable "db_state" {}
            """);
    assertThat(r.diagnostics().errors()).isEmpty();
    List<DataDecl> data = r.config().dataSources();
    assertThat(data)
        .extracting(DataDecl::address)
        .containsExactly("data.terraform_remote_state.net", "data.terraform_remote_state.db");
    assertThat(data.get(0).backend()).isEqualTo("stagecraft");
    assertThat(data.get(0).attributes()).containsOnlyKeys("config");
    assertThat(data.get(1).backend()).isEqualTo("http");
    assertThat(data.get(1).attributes()).containsOnlyKeys("config", "workspace", "defaults");
    assertThat(data.get(1).range().toString()).startsWith("main.tf:5:1");
  }

  @Test
  void theJsonSyntaxDecodesTheSameBlock() {
    LoadResult r =
        ConfigLoader.load(
            Map.of(
                "main.tf.json",
                """
                {"data": {"terraform_remote_state": {"net": {
                  "backend": "stagecraft", "config": {"workspace": "network"}}}}}
                """));
    assertThat(r.diagnostics().errors()).isEmpty();
    assertThat(r.config().dataSources())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.name()).isEqualTo("net");
              assertThat(d.backend()).isEqualTo("stagecraft");
            });
  }

  @Test
  void aBackendOtherThanStagecraftOrHttpIsAnErrorSayingWhatToUse() {
    List<Diagnostic> errs =
        load("""
                data "terraform_remote_state" "net" {
                  backend = "s3"
                  config  = { bucket = "b", key = "k" }
                }
                """)
            .diagnostics()
            .errors();
    assertThat(errs)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.summary()).isEqualTo("Unsupported remote state backend");
              assertThat(d.range().toString()).startsWith("main.tf:2:13");
              assertThat(d.detail())
                  .contains("backend \"s3\"")
                  .contains("backend = \"stagecraft\"");
            });
  }

  @Test
  void aMissingOrComputedBackendIsAnErrorAtTheBlock() {
    assertThat(
            errors(
                """
                data "terraform_remote_state" "a" { config = { workspace = "x" } }
                data "terraform_remote_state" "b" { backend = var.kind }
                variable "kind" {}
                """))
        .containsExactly("Missing required argument @main.tf:1:1", "Invalid backend @main.tf:2:47");
  }

  @Test
  void metaArgumentsNestedBlocksAndUnknownArgumentsAreErrors() {
    List<Diagnostic> errs =
        load("""
                data "terraform_remote_state" "a" {
                  backend = "stagecraft"
                  count   = 2
                  depends_on = [null_resource.x]
                  bucket  = "b"
                  lifecycle {}
                }
                """)
            .diagnostics()
            .errors();
    assertThat(errs)
        .extracting(d -> d.summary() + " @" + d.range().start().line())
        .containsExactly(
            "Unsupported argument @3",
            "Unsupported argument @4",
            "Unsupported argument @5",
            "Unsupported block type @6");
    assertThat(errs.get(0).detail()).contains("read once, before planning");
    assertThat(errs.get(2).detail())
        .contains("Allowed arguments: backend, config, defaults, workspace");
  }

  @Test
  void twoBlocksOfTheSameNameAreAnError() {
    assertThat(
            errors(
                """
                data "terraform_remote_state" "a" { backend = "stagecraft" }
                data "terraform_remote_state" "a" { backend = "http" }
                """))
        .containsExactly("Duplicate data \"terraform_remote_state\" configuration @main.tf:2:31");
  }

  @Test
  void otherDataSourcesAreStillRefusedNamingTheSupportedOne() {
    List<Diagnostic> errs = load("data \"aws_vpc\" \"x\" {}\n").diagnostics().errors();
    assertThat(errs)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.summary()).isEqualTo("Unsupported data source");
              assertThat(d.detail()).contains("terraform_remote_state");
            });
  }
}
