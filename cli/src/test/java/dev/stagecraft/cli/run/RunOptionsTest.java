package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunOptionsTest {
  @TempDir Path dir;

  CliContext ctx() {
    return ctx(Map.of());
  }

  CliContext ctx(Map<String, String> env) {
    return new CliContext(
        dir,
        env,
        new PrintStream(PrintStream.nullOutputStream()),
        new PrintStream(PrintStream.nullOutputStream()),
        new BufferedReader(new StringReader("")));
  }

  @Test
  void laterVarOptionsWinOverVarFilesAsInTerraform() throws Exception {
    Files.writeString(dir.resolve("prod.tfvars"), "revision = \"from-file\"\nregion = \"eu\"\n");
    RunOptions o =
        RunOptions.parse(
            ctx(),
            List.of("-var-file=prod.tfvars", "-var", "revision=from-flag", "-workspace=prod"),
            true);
    // a file's values are HCL expressions (typed by the planner), a -var's the string itself
    assertThat(o.variables)
        .containsEntry("revision", "from-flag")
        .containsEntry("region", "\"eu\"");
    assertThat(o.hclVariables).containsExactly("region");
    assertThat(o.workspace).isEqualTo("prod");
  }

  @Test
  void takesVariablesFromEveryTerraformSourceInTerraformsPrecedence() throws Exception {
    Files.writeString(dir.resolve("terraform.tfvars"), "a = \"tfvars\"\nb = \"tfvars\"\n");
    Files.writeString(dir.resolve("x.auto.tfvars"), "b = \"auto\"\nc = \"auto\"\n");
    Files.writeString(dir.resolve("extra.tfvars"), "c = \"file\"\n");
    Map<String, String> env =
        Map.of(
            "TF_VAR_a",
            "env",
            "TF_VAR_e",
            "tf-env",
            "STAGECRAFT_VAR_e",
            "stagecraft-env",
            "TF_VAR_undeclared",
            "ignored");
    RunOptions o =
        RunOptions.parse(ctx(env), List.of("-var-file=extra.tfvars", "-var", "d=flag"), false);
    RunOptions.VariableInputs inputs =
        o.allVariables(ctx(env), java.util.Set.of("a", "b", "c", "d", "e"));
    Map<String, String> all = inputs.values();
    assertThat(inputs.hcl()).containsExactlyInAnyOrder("a", "b", "c");
    assertThat(all)
        .containsEntry("a", "\"tfvars\"")
        .containsEntry("b", "\"auto\"")
        .containsEntry("c", "\"file\"")
        .containsEntry("d", "flag")
        .containsEntry("e", "stagecraft-env")
        .doesNotContainKey("undeclared");
  }

  @Test
  void acceptsBothOptionSpellings() throws Exception {
    RunOptions o =
        RunOptions.parse(
            ctx(), List.of("-var=a=b=c", "--replace", "stateful_provisioning.app", "-json"), false);
    assertThat(o.variables).containsEntry("a", "b=c");
    assertThat(o.replace).containsExactly("stateful_provisioning.app");
    assertThat(o.json).isTrue();
    assertThat(o.upgrade).isFalse();
    assertThat(RunOptions.parse(ctx(), List.of("-upgrade"), true).upgrade).isTrue();
  }

  @Test
  void rejectsAVarWithoutNameAndValueWithAnExample() {
    assertThatThrownBy(() -> RunOptions.parse(ctx(), List.of("-var", "oops"), false))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("NAME=VALUE");
  }

  @Test
  void rejectsAutoApproveOnPlan() {
    assertThatThrownBy(() -> RunOptions.parse(ctx(), List.of("-auto-approve"), false))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void reportsAnInvalidVarFileWithItsPosition() throws Exception {
    Files.writeString(dir.resolve("bad.tfvars"), "revision = \n");
    assertThatThrownBy(() -> RunOptions.parse(ctx(), List.of("-var-file=bad.tfvars"), false))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("bad.tfvars:");
  }
}
