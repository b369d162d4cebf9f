package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.planner.apply.ActionResolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Module calls with {@code count} and {@code for_each} (issue 29 item 8, docs/adr/0065): each
 * instance is planned in its own scope with the call's {@code count.index} / {@code each} in its
 * arguments, at Terraform's addresses ({@code module.app["eu"].null_resource.deploy[0]}) in the
 * plan text and JSON, from and to state; the caller reads a tuple or map of the instances' outputs.
 */
class RepeatedModulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private static final String ROOT =
      """
      variable "regions" {
        default = { eu = "10.1", us = "10.2" }
      }
      variable "replicas" { default = 2 }
      module "app" {
        for_each = var.regions
        source   = "./modules/app"
        region   = each.key
        subnet   = each.value
        replicas = var.replicas
      }
      module "edge" {
        count  = 2
        source = "./modules/edge"
        name   = "edge-${count.index}"
      }
      output "hosts" { value = { for k, m in module.app : k => m.hosts } }
      output "edges" { value = module.edge[*].name }
      """;

  private void writeModules() throws IOException {
    write(
        "modules/app/main.tf",
        """
        variable "region" {}
        variable "subnet" {}
        variable "replicas" { type = number }
        resource "null_resource" "deploy" {
          count    = var.replicas
          triggers = { host = "${var.subnet}.0.${count.index}" }
          provisioner "local-exec" {
            command = "deploy ${var.region} ${self.triggers.host}"
          }
        }
        module "db" {
          count  = var.region == "eu" ? 1 : 0
          source = "../db"
          region = var.region
        }
        output "hosts" { value = null_resource.deploy[*].triggers.host }
        """);
    write(
        "modules/db/main.tf",
        """
        variable "region" {}
        resource "terraform_data" "schema" { input = var.region }
        """);
    write(
        "modules/edge/main.tf",
        """
        variable "name" {}
        resource "null_resource" "x" { triggers = { name = var.name } }
        output "name" { value = var.name }
        """);
  }

  private void write(String path, String text) throws IOException {
    Path p = dir.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private PlanResult plan(String root, PriorState prior, List<String> replace) {
    return Planner.plan(
        new PlanRequest("default", Map.of("main.tf", root), Map.of(), replace, false, dir), prior);
  }

  @Test
  void everyInstanceIsPlannedAtTerraformsAddressWithTheCallsKeyInItsArguments() throws Exception {
    writeModules();

    PlanResult result = plan(ROOT, PriorState.empty(), List.of());

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    assertThat(plan.actions())
        .extracting(PlannedAction::address)
        .containsExactlyInAnyOrder(
            "module.app[\"eu\"].null_resource.deploy[0]",
            "module.app[\"eu\"].null_resource.deploy[1]",
            "module.app[\"us\"].null_resource.deploy[0]",
            "module.app[\"us\"].null_resource.deploy[1]",
            "module.app[\"eu\"].module.db[0].terraform_data.schema",
            "module.edge[0].null_resource.x",
            "module.edge[1].null_resource.x");
    PlannedAction us1 = plan.action("module.app[\"us\"].null_resource.deploy[1]").orElseThrow();
    assertThat(us1.name()).isEqualTo("deploy");
    assertThat(us1.after().get("triggers")).isEqualTo(Map.of("host", "10.2.0.1"));
    assertThat(plan.action("module.edge[1].null_resource.x").orElseThrow().after().get("triggers"))
        .isEqualTo(Map.of("name", "edge-1"));
    assertThat(plan.output("hosts").orElseThrow().after())
        .isEqualTo(
            Map.of("eu", List.of("10.1.0.0", "10.1.0.1"), "us", List.of("10.2.0.0", "10.2.0.1")));
    assertThat(plan.output("edges").orElseThrow().after()).isEqualTo(List.of("edge-0", "edge-1"));

    JsonNode json = change(plan, "module.app[\"eu\"].module.db[0].terraform_data.schema");
    assertThat(json.path("module_address").asText()).isEqualTo("module.app[\"eu\"].module.db[0]");
    assertThat(json.path("type").asText()).isEqualTo("terraform_data");
    assertThat(json.path("name").asText()).isEqualTo("schema");
    assertThat(json.has("index")).isFalse();
    JsonNode deploy = change(plan, "module.app[\"us\"].null_resource.deploy[1]");
    assertThat(deploy.path("module_address").asText()).isEqualTo("module.app[\"us\"]");
    assertThat(deploy.path("index").asInt()).isEqualTo(1);
    assertThat(PlanRenderer.render(plan))
        .contains("  # module.app[\"us\"].null_resource.deploy[1] will be created\n");

    ActionResolution resolution = result.applyContext().resolve(us1, Map.of(), () -> "id-1");
    assertThat(resolution.hasErrors()).as(resolution.renderDiagnostics()).isFalse();
    assertThat(resolution.steps())
        .singleElement()
        .satisfies(s -> assertThat(s.command()).isEqualTo("deploy us 10.2.0.1"));
  }

  private static final String STATE =
      """
      {"version":4,"serial":3,"lineage":"l","outputs":{},"resources":[
        {"module":"module.app[\\"eu\\"]","mode":"managed","type":"null_resource","name":"deploy","provider":"p",
         "instances":[
           {"index_key":0,"attributes":{"id":"e0","triggers":{"host":"10.1.0.0"}}},
           {"index_key":1,"attributes":{"id":"e1","triggers":{"host":"10.1.0.1"}}}]},
        {"module":"module.app[\\"us\\"]","mode":"managed","type":"null_resource","name":"deploy","provider":"p",
         "instances":[
           {"index_key":0,"attributes":{"id":"u0","triggers":{"host":"10.2.0.0"}}},
           {"index_key":1,"attributes":{"id":"u1","triggers":{"host":"10.2.0.1"}}}]},
        {"module":"module.app[\\"eu\\"].module.db[0]","mode":"managed","type":"terraform_data","name":"schema","provider":"p",
         "instances":[{"attributes":{"id":"s","input":"eu","output":"eu","triggers_replace":null}}]},
        {"module":"module.edge[0]","mode":"managed","type":"null_resource","name":"x","provider":"p",
         "instances":[{"attributes":{"id":"x0","triggers":{"name":"edge-0"}}}]},
        {"module":"module.edge[1]","mode":"managed","type":"null_resource","name":"x","provider":"p",
         "instances":[{"attributes":{"id":"x1","triggers":{"name":"edge-1"}}}]}]}
      """;

  @Test
  void aStateHoldingTheInstancesPlansNoChangeAndADroppedKeyDestroysItsInstances() throws Exception {
    writeModules();

    PlanResult same = plan(ROOT, PriorState.fromV4Json(STATE), List.of());
    assertThat(same.hasErrors()).as(same.renderDiagnostics()).isFalse();
    assertThat(same.plan().changes()).as(PlanRenderer.render(same.plan())).isEmpty();

    PlanResult replaced =
        plan(
            ROOT,
            PriorState.fromV4Json(STATE),
            List.of("module.app[\"us\"].null_resource.deploy[0]"));
    assertThat(replaced.plan().changes())
        .extracting(PlannedAction::address)
        .containsExactly("module.app[\"us\"].null_resource.deploy[0]");

    PlanResult dropped =
        plan(
            ROOT.replace("us = \"10.2\"", "").replace("count  = 2", "count  = 1"),
            PriorState.fromV4Json(STATE),
            List.of());
    assertThat(dropped.hasErrors()).as(dropped.renderDiagnostics()).isFalse();
    assertThat(dropped.plan().changes())
        .extracting(a -> a.address() + " " + a.action() + " " + a.reason())
        .containsExactlyInAnyOrder(
            "module.app[\"us\"].null_resource.deploy[0] DELETE DELETE_BECAUSE_NO_MODULE",
            "module.app[\"us\"].null_resource.deploy[1] DELETE DELETE_BECAUSE_NO_MODULE",
            "module.edge[1].null_resource.x DELETE DELETE_BECAUSE_NO_MODULE");
    assertThat(PlanRenderer.render(dropped.plan()))
        .contains("(because module.app[\"us\"] is not in configuration)");
  }

  @Test
  void keysWithDotsBracketsAndQuotesRoundTripThroughAddresses() throws Exception {
    write("modules/x/main.tf", "resource \"null_resource\" \"x\" {}\n");
    String root =
        """
        module "x" {
          for_each = toset(["a.b[1]", "q\\"{%}"])
          source   = "./modules/x"
        }
        """;

    PlanResult result = plan(root, PriorState.empty(), List.of());

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    List<String> addresses = result.plan().actions().stream().map(PlannedAction::address).toList();
    assertThat(addresses)
        .containsExactlyInAnyOrder(
            "module.x[\"a.b[1]\"].null_resource.x", "module.x[\"q\\\"{%}\"].null_resource.x");
    for (String a : addresses) {
      assertThat(ModuleAddresses.external(ModuleAddresses.internal(a))).isEqualTo(a);
      assertThat(InstanceKey.resourceOf(a)).isEqualTo(a);
    }
    assertThat(ModuleAddresses.internal("module.x[\"a.b[1]\"].null_resource.x[\"k[0]\"]"))
        .isEqualTo("null_resource.module.x{\"a%2Eb%5B1%5D\"}.x[\"k[0]\"]");
    assertThat(InstanceKey.parse("module.x[\"a\"].null_resource.x[\"k[0]\"]").key())
        .isEqualTo("k[0]");
  }

  @Test
  void aCallsKeysMayComeFromAnotherModulesOutputsExpandedFirst() throws Exception {
    write(
        "modules/names/main.tf",
        "variable \"n\" {}\noutput \"names\" { value = [for i in range(var.n) : \"n${i}\"] }\n");
    write(
        "modules/x/main.tf",
        "variable \"v\" {}\nresource \"null_resource\" \"x\" { triggers = { v = var.v } }\n");
    String root =
        """
        module "names" {
          source = "./modules/names"
          n      = 2
        }
        module "x" {
          for_each = toset(module.names.names)
          source   = "./modules/x"
          v        = each.value
        }
        """;

    PlanResult result = plan(root, PriorState.empty(), List.of());

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().actions())
        .extracting(a -> a.address() + "=" + a.after().get("triggers"))
        .containsExactlyInAnyOrder(
            "module.x[\"n0\"].null_resource.x={v=n0}", "module.x[\"n1\"].null_resource.x={v=n1}");
  }

  @Test
  void keysThatDependOnAResourceOrAreUnknownAreAnErrorAtTheArgument() throws Exception {
    write("modules/x/main.tf", "resource \"null_resource\" \"x\" {}\n");
    String onResource =
        """
        resource "null_resource" "seed" {}
        locals { n = length(null_resource.seed.id) }
        module "x" {
          count  = local.n
          source = "./modules/x"
        }
        """;
    PlanResult result = plan(onResource, PriorState.empty(), List.of());
    assertThat(result.plan()).isNull();
    assertThat(result.diagnostics().errors())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.summary()).isEqualTo("Invalid count argument");
              assertThat(d.detail()).contains("module.x", "null_resource.seed", "before planning");
              assertThat(d.range().toString()).isEqualTo("main.tf:4:12");
            });

    String unknown =
        """
        module "x" {
          for_each = toset([timestamp()])
          source   = "./modules/x"
        }
        """;
    PlanResult later = plan(unknown, PriorState.empty(), List.of());
    assertThat(later.plan()).isNull();
    assertThat(later.diagnostics().errors())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.summary()).isEqualTo("Invalid for_each argument");
              assertThat(d.detail()).contains("cannot be determined until apply");
              assertThat(d.range().toString()).isEqualTo("main.tf:2:14");
            });

    String notAMap =
        """
        module "x" {
          for_each = "a"
          source   = "./modules/x"
        }
        """;
    assertThat(plan(notAMap, PriorState.empty(), List.of()).diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Invalid for_each argument @main.tf:2:14");
  }

  @Test
  void aModuleCalledZeroTimesIsAnEmptyTupleAndValidateAcceptsUnknownKeys() throws Exception {
    write(
        "modules/x/main.tf",
        "resource \"null_resource\" \"x\" {}\noutput \"id\" { value = null_resource.x.id }\n");
    String root =
        """
        variable "n" { type = number }
        module "x" {
          count  = var.n
          source = "./modules/x"
        }
        output "ids" { value = length(module.x[*].id) }
        """;

    PlanResult result =
        Planner.plan(
            new PlanRequest(
                "default", Map.of("main.tf", root), Map.of("n", "0"), List.of(), false, dir),
            PriorState.empty());

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().actions()).isEmpty();
    assertThat(result.plan().output("ids").orElseThrow().after().toString()).isEqualTo("0");
    assertThat(Planner.validate(Map.of("main.tf", root), dir).errors()).isEmpty();
  }

  @Test
  void moreThanAThousandModuleInstancesAreRefused() throws Exception {
    write("modules/x/main.tf", "variable \"i\" {}\n");
    PlanResult result =
        plan(
            "module \"x\" {\n  count = 1001\n  source = \"./modules/x\"\n  i = count.index\n}\n",
            PriorState.empty(),
            List.of());
    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactly("Too many module instances @main.tf:2:11");
  }

  private static JsonNode change(Plan plan, String address) throws IOException {
    List<String> seen = new ArrayList<>();
    for (JsonNode c : JSON.readTree(PlanJson.render(plan)).path("resource_changes")) {
      seen.add(c.path("address").asText());
      if (c.path("address").asText().equals(address)) {
        return c;
      }
    }
    throw new AssertionError(address + " not among " + seen);
  }
}
