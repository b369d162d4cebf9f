package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Module calls are not planned yet (docs/adr/0065): a plan or a validation of a configuration that
 * calls modules checks the calls and the modules' files, reports every problem in them, and refuses
 * with "Modules are not supported yet" at the first call; nothing is planned.
 */
class ModuleCallsTest {
  @TempDir Path dir;

  private static final String ROOT =
      """
      module "app" {
        source = "./modules/app"
        nodes  = ["a"]
      }
      """;

  @Test
  void aPlanOfACallingConfigurationIsRefusedAfterTheModulesWereChecked() throws Exception {
    Files.createDirectories(dir.resolve("modules/app"));
    Files.writeString(
        dir.resolve("modules/app/main.tf"),
        "variable \"nodes\" {}\nresource \"null_resource\" \"x\" {\n  bogus = 1\n}\n");

    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", ROOT), Map.of(), List.of(), false, dir),
            PriorState.empty());

    assertThat(result.plan()).isNull();
    assertThat(result.diagnostics().errors())
        .extracting(d -> d.summary() + " @" + d.range())
        .containsExactlyInAnyOrder(
            "Unsupported argument @modules/app/main.tf:3:3",
            "Modules are not supported yet @main.tf:1:1");
    assertThat(result.diagnostics().errors())
        .anySatisfy(d -> assertThat(d.detail()).contains("module \"app\"", "nothing was planned"));
  }

  @Test
  void validateRefusesToo() throws Exception {
    Files.createDirectories(dir.resolve("modules/app"));
    Files.writeString(dir.resolve("modules/app/main.tf"), "variable \"nodes\" {}\n");

    List<Diagnostic> errors = Planner.validate(Map.of("main.tf", ROOT), dir).errors();

    assertThat(errors)
        .singleElement()
        .satisfies(d -> assertThat(d.summary()).isEqualTo("Modules are not supported yet"));
  }

  @Test
  void withoutTheModulesFilesTheDirectoryIsNamed() {
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", ROOT), Map.of(), List.of(), false, null),
            PriorState.empty());

    assertThat(result.diagnostics().errors())
        .anySatisfy(
            d -> {
              assertThat(d.summary()).isEqualTo("Unreadable module directory");
              assertThat(d.detail()).contains("modules/app");
            });
  }
}
