package dev.stagecraft.language.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {

  private static LoadResult load(String text) {
    return ConfigLoader.load(Map.of("main.tf", text));
  }

  private static List<Diagnostic> errors(String text) {
    return load(text).diagnostics().errors();
  }

  @Test
  void loadsTheSeedExampleFromTheProviderDocumentation() throws IOException {
    String text;
    try (InputStream in = getClass().getResourceAsStream("/seeds/000_example.tf")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    LoadResult r = ConfigLoader.load(Map.of("main.tf", text));
    assertThat(r.diagnostics().list()).isEmpty();
    Configuration c = r.config();
    assertThat(c.variables()).containsKey("revision_to_deploy");
    assertThat(c.variables().get("revision_to_deploy").required()).isTrue();
    ResourceDecl app = c.resource("stateful_provisioning.app").orElseThrow();
    assertThat(app.attribute("state_key").orElseThrow().expr().traversals())
        .extracting(t -> t.variableName().orElseThrow())
        .containsExactly("revision_to_deploy");
    ProvisionerDecl p = app.provisioners().get(0);
    assertThat(p.type()).isEqualTo("remote-exec");
    assertThat(p.connection().orElseThrow().attribute("key_file")).isPresent();
    assertThat(p.when()).isEqualTo("create");
  }

  @Test
  void decodesAFullConfiguration() {
    LoadResult r =
        load(
            """
            terraform { required_version = ">= 1.5" }
            variable "rev" {
              type = string
              default = "abc"
              description = "revision"
              sensitive = true
            }
            locals {
              tag = "app-${var.rev}"
            }
            resource "terraform_data" "base" {
              input = "x"
            }
            resource "stateful_provisioning" "app" {
              count = 2
              state_key = var.rev
              tags = { Name = local.tag }
              depends_on = [terraform_data.base]
              connection {
                type = "ssh"
                host = "h"
              }
              provisioner "local-exec" {
                command = "echo create"
              }
              provisioner "local-exec" {
                when = destroy
                on_failure = continue
                command = "echo destroy"
              }
              provisioner "file" {
                content = "x"
                destination = "/tmp/x"
              }
              lifecycle {
                create_before_destroy = true
              }
            }
            output "id" {
              value = stateful_provisioning.app[0].id
              sensitive = true
            }
            """);
    assertThat(r.diagnostics().list()).isEmpty();
    Configuration c = r.config();
    assertThat(c.requiredVersion()).contains(">= 1.5");
    assertThat(c.variables().get("rev").sensitive()).isTrue();
    assertThat(c.variables().get("rev").description()).contains("revision");
    assertThat(c.locals()).extracting(LocalDecl::name).containsExactly("tag");
    ResourceDecl app = c.resource("stateful_provisioning.app").orElseThrow();
    assertThat(app.address()).isEqualTo("stateful_provisioning.app");
    assertThat(app.count()).isPresent();
    assertThat(app.attributes()).containsOnlyKeys("state_key", "tags");
    assertThat(app.dependsOn())
        .extracting(t -> t.resourceAddress().orElseThrow())
        .containsExactly("terraform_data.base");
    assertThat(app.provisioners())
        .extracting(ProvisionerDecl::type, ProvisionerDecl::when, ProvisionerDecl::onFailure)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("local-exec", "create", "fail"),
            org.assertj.core.groups.Tuple.tuple("local-exec", "destroy", "continue"),
            org.assertj.core.groups.Tuple.tuple("file", "create", "fail"));
    assertThat(app.connection()).isPresent();
    assertThat(app.lifecycle().orElseThrow().attribute("create_before_destroy")).isPresent();
    assertThat(c.outputs().get(0).sensitive()).isTrue();
  }

  @Test
  void rejectsUnsupportedResourceTypesListingTheSupportedOnes() {
    List<Diagnostic> errs = errors("resource \"aws_instance\" \"web\" {\n}\n");
    assertThat(errs).hasSize(1);
    assertThat(errs.get(0).summary()).isEqualTo("Unsupported resource type");
    assertThat(errs.get(0).detail())
        .contains("null_resource, stateful_provisioning, terraform_data");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:1:10");
  }

  @Test
  void rejectsUnknownTopLevelBlocks() {
    List<Diagnostic> errs = errors("import \"x\" {}\ncheck \"y\" {}\n");
    assertThat(errs)
        .extracting(d -> d.range().toString())
        .containsExactly("main.tf:1:1", "main.tf:2:1");
    assertThat(errs.get(0).summary()).isEqualTo("Unsupported block type");
  }

  @Test
  void acceptsTheProviderBlocksOfTheImplementedResourceTypesWithAWarning() {
    LoadResult r = load("provider \"null\" {}\nprovider \"stateful\" {\n  alias = \"x\"\n}\n");
    assertThat(r.diagnostics().errors()).isEmpty();
    assertThat(r.diagnostics().list())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly(
            "Ignored provider block @main.tf:1:1", "Ignored provider block @main.tf:2:1");

    List<Diagnostic> errs = errors("provider \"aws\" {}\n");
    assertThat(errs)
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Unsupported provider @main.tf:1:10");
    assertThat(errs.get(0).detail()).contains("stateful_provisioning", "null_resource");
  }

  @Test
  void aDataSourceIsAnErrorThatNamesTheStagecraftWayForTheCommonOnes() {
    List<Diagnostic> errs =
        errors(
            """
            data "local_file" "a" { filename = "a.txt" }
            data "template_file" "b" { template = "x" }
            data "external" "c" { program = ["x"] }
            data "http" "d" { url = "https://example.com" }
            """);
    assertThat(errs)
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly(
            "Unsupported data source @main.tf:1:1",
            "Unsupported data source @main.tf:2:1",
            "Unsupported data source @main.tf:3:1",
            "Unsupported data source @main.tf:4:1");
    assertThat(errs.get(0).detail()).contains("file(\"path\")");
    assertThat(errs.get(1).detail()).contains("templatefile(\"path\"");
    assertThat(errs.get(2).detail()).contains("local-exec provisioner");
    assertThat(errs.get(3).detail())
        .isEqualTo(
            "Data sources (data \"http\") are not supported by Stagecraft; the one supported"
                + " data source is terraform_remote_state.");
  }

  @Test
  void rejectsUnknownResourceArgumentsAndRequiresStateKey() {
    List<Diagnostic> errs =
        errors(
            """
            resource "stateful_provisioning" "app" {
              stat_key = "x"
            }
            """);
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly("Unsupported argument", "Missing required argument");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:2:3");
    assertThat(errs.get(0).detail()).contains("state_key", "triggers", "tags", "depends_on");
  }

  @Test
  void rejectsUnsupportedProvisionersAndUnknownProvisionerArguments() {
    List<Diagnostic> errs =
        errors(
            """
            resource "stateful_provisioning" "app" {
              state_key = "x"
              provisioner "chef" {}
              provisioner "local-exec" {
                cmd = "x"
              }
            }
            """);
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly(
            "Unsupported provisioner type", "Unsupported argument", "Missing required argument");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:3:15");
    assertThat(errs.get(1).range().toString()).isEqualTo("main.tf:5:5");
  }

  @Test
  void rejectsConnectionTypesOtherThanSshNamingFileAndLine() {
    List<Diagnostic> errs =
        errors(
            """
            resource "stateful_provisioning" "app" {
              state_key = "x"
              provisioner "remote-exec" {
                inline = ["x"]
                connection {
                  type = "winrm"
                }
              }
            }
            """);
    assertThat(errs).hasSize(1);
    assertThat(errs.get(0).summary()).isEqualTo("Unsupported connection type");
    assertThat(errs.get(0).detail()).contains("main.tf line 6").contains("winrm");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:6:14");
  }

  @Test
  void rejectsDuplicateVariablesAndResourceAddressesAcrossFiles() {
    LoadResult r =
        ConfigLoader.load(
            Map.of(
                "a.tf",
                "variable \"x\" {}\nresource \"null_resource\" \"n\" {}\n",
                "b.tf",
                "variable \"x\" {}\nresource \"null_resource\" \"n\" {}\n"));
    List<Diagnostic> errs = r.diagnostics().errors();
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly(
            "Duplicate variable declaration", "Duplicate resource \"null_resource\" configuration");
    assertThat(errs.get(0).range().toString()).isEqualTo("b.tf:1:10");
    assertThat(errs.get(0).detail()).contains("a.tf:1:1");
    assertThat(r.config().resources()).hasSize(1);
  }

  @Test
  void requiresDependsOnToBeAListOfDeclaredResourcesVariablesOrLocals() {
    List<Diagnostic> errs =
        errors(
            """
            resource "null_resource" "a" {
              depends_on = [path.module, null_resource.b.id, null_resource.missing]
            }
            resource "null_resource" "b" {
              depends_on = null_resource.a
            }
            """);
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly(
            "Invalid depends_on reference",
            "Invalid depends_on reference",
            "Invalid depends_on",
            "Reference to undeclared resource");
    assertThat(errs.get(0).range().toString()).isEqualTo("main.tf:2:17");
  }

  @Test
  void rejectsInvalidWhenAndOnFailureKeywords() {
    List<Diagnostic> errs =
        errors(
            """
            resource "null_resource" "a" {
              provisioner "local-exec" {
                command = "x"
                when = later
                on_failure = "ignore"
              }
            }
            """);
    assertThat(errs)
        .extracting(Diagnostic::summary)
        .containsExactly("Invalid \"when\" value", "Invalid \"on_failure\" value");
  }

  @Test
  void reportsSyntaxErrorsFromEveryFileTogetherWithDecodeErrors() {
    LoadResult r =
        ConfigLoader.load(
            Map.of(
                "a.tf", "resource \"null_resource\" \"a\" {\n",
                "b.tf", "module \"m\" {}\n",
                "c.tf.json", "{\"resource\": [1]}"));
    assertThat(r.diagnostics().errors())
        .extracting(d -> d.range().file())
        .containsExactly("a.tf", "b.tf", "c.tf.json");
  }
}
