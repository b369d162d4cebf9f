package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A variable's value arrives with the type Terraform gives it, from every source: variable files
 * ({@code terraform.tfvars}, {@code *.auto.tfvars}, {@code -var-file}) hold HCL values that keep
 * their own type; {@code -var} and {@code TF_VAR_} strings are the string itself unless the
 * declared type is a collection or structure. Each case is planned as the CLI plans it and the
 * output of the variable compared as JSON.
 */
class VariableSourcesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  /** Declared type ("" = none), the value as HCL, the value as -var text, and both expected. */
  record Case(String type, String hcl, String cli, String fromFile, String fromString) {}

  static Stream<Arguments> cases() {
    List<Case> cases =
        List.of(
            new Case(
                "",
                "[\"a\", \"b\"]",
                "[\"a\",\"b\"]",
                "[\"a\",\"b\"]",
                "\"[\\\"a\\\",\\\"b\\\"]\""),
            new Case("", "3", "3", "3", "\"3\""),
            new Case("", "true", "true", "true", "\"true\""),
            new Case("", "{ k = \"v\" }", "{k=\"v\"}", "{\"k\":\"v\"}", "\"{k=\\\"v\\\"}\""),
            new Case("", "\"text\"", "text", "\"text\"", "\"text\""),
            new Case("string", "\"text\"", "text", "\"text\"", "\"text\""),
            new Case("number", "5", "5", "5", "5"),
            new Case("bool", "false", "false", "false", "false"),
            new Case(
                "list(string)",
                "[\"a\", \"b\"]",
                "[\"a\",\"b\"]",
                "[\"a\",\"b\"]",
                "[\"a\",\"b\"]"),
            new Case("map(string)", "{ k = \"v\" }", "{k=\"v\"}", "{\"k\":\"v\"}", "{\"k\":\"v\"}"),
            new Case("object({ n = number })", "{ n = 1 }", "{n=1}", "{\"n\":1}", "{\"n\":1}"));
    List<Arguments> all = new ArrayList<>();
    for (Case c : cases) {
      for (String source :
          List.of(
              "terraform.tfvars",
              "auto.tfvars",
              "-var-file",
              "terraform.tfvars.json",
              "auto.tfvars.json",
              "-var-file json",
              "-var",
              "TF_VAR_")) {
        all.add(Arguments.of(source, c));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void aValueHasTheTypeTerraformGivesItFromItsSource(String source, Case c) throws Exception {
    String type = c.type().isEmpty() ? "" : "type = " + c.type();
    Map<String, String> files =
        Map.of("main.tf", "variable \"v\" {\n  " + type + "\n}\noutput \"v\" { value = var.v }\n");

    Object value = plannedOutput(files, source, c.hcl(), c.cli(), c.fromFile());

    boolean file = source.contains("tfvars") || source.startsWith("-var-file");
    assertThat(JSON.writeValueAsString(value)).isEqualTo(file ? c.fromFile() : c.fromString());
  }

  @Test
  void anUntypedListFromTerraformTfvarsCountsItsElementsNotItsCharacters() throws Exception {
    Files.writeString(dir.resolve("terraform.tfvars"), "nodes = [\"a\", \"b\"]\n");
    Map<String, String> files =
        Map.of(
            "main.tf",
            """
            variable "nodes" {}
            resource "stateful_provisioning" "node" {
              count     = length(var.nodes)
              state_key = var.nodes[count.index]
            }
            """);
    RunOptions o = RunOptions.parse(ctx(Map.of()), List.of(), false);
    RunOptions.VariableInputs inputs = o.allVariables(ctx(Map.of()), Set.of("nodes"));

    PlanResult result = plan(files, inputs);

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(result.plan().toAdd()).isEqualTo(2);
  }

  @Test
  void aJsonVariableFileKeepsStringsLiteralAndFollowsTheAutomaticFilesOrder() throws Exception {
    Files.writeString(
        dir.resolve("terraform.tfvars"), "a = \"from tfvars\"\nb = \"from tfvars\"\n");
    Files.writeString(
        dir.resolve("terraform.tfvars.json"), "{\"b\": \"${not.a.template} %{x} \\\"q\\\"\"}");
    Files.writeString(dir.resolve("a.auto.tfvars.json"), "{\"a\": 2.50}");
    Map<String, String> files =
        Map.of(
            "main.tf",
            """
            variable "a" {}
            variable "b" {}
            output "a" { value = var.a }
            output "b" { value = var.b }
            """);
    RunOptions o = RunOptions.parse(ctx(Map.of()), List.of(), false);
    PlanResult result = plan(files, o.allVariables(ctx(Map.of()), Set.of("a", "b")));

    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(JSON.writeValueAsString(result.plan().output("a").orElseThrow().after()))
        .isEqualTo("2.5");
    assertThat(result.plan().output("b").orElseThrow().after())
        .isEqualTo("${not.a.template} %{x} \"q\"");
  }

  @Test
  void aBrokenJsonVariableFileNamesTheFileLineAndColumn() throws Exception {
    Files.writeString(dir.resolve("bad.tfvars.json"), "{\n  \"a\": [1,\n}");
    assertThatThrownBy(
            () -> RunOptions.parse(ctx(Map.of()), List.of("-var-file=bad.tfvars.json"), false))
        .isInstanceOf(dev.stagecraft.cli.UsageException.class)
        .hasMessageContaining("bad.tfvars.json:3:")
        .hasMessageContaining("one JSON object");
    Files.writeString(dir.resolve("list.tfvars.json"), "[1]");
    assertThatThrownBy(
            () -> RunOptions.parse(ctx(Map.of()), List.of("-var-file=list.tfvars.json"), false))
        .hasMessageContaining("the root must be a JSON object");
  }

  private Object plannedOutput(
      Map<String, String> files, String source, String hcl, String cli, String json)
      throws Exception {
    Map<String, String> env = Map.of();
    List<String> args = List.of();
    switch (source) {
      case "terraform.tfvars" -> Files.writeString(dir.resolve("terraform.tfvars"), "v = " + hcl);
      case "auto.tfvars" -> Files.writeString(dir.resolve("x.auto.tfvars"), "v = " + hcl);
      case "-var-file" -> {
        Files.writeString(dir.resolve("given.tfvars"), "v = " + hcl + "\n");
        args = List.of("-var-file=given.tfvars");
      }
      case "terraform.tfvars.json" ->
          Files.writeString(dir.resolve("terraform.tfvars.json"), "{\"v\": " + json + "}");
      case "auto.tfvars.json" ->
          Files.writeString(dir.resolve("x.auto.tfvars.json"), "{\"v\": " + json + "}");
      case "-var-file json" -> {
        Files.writeString(dir.resolve("given.json"), "{\"v\": " + json + "}\n");
        args = List.of("-var-file=given.json");
      }
      case "-var" -> args = List.of("-var", "v=" + cli);
      default -> env = Map.of("TF_VAR_v", cli);
    }
    RunOptions o = RunOptions.parse(ctx(env), args, false);
    PlanResult result = plan(files, o.allVariables(ctx(env), Set.of("v")));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result.plan().output("v").orElseThrow().after();
  }

  private PlanResult plan(Map<String, String> files, RunOptions.VariableInputs inputs) {
    return Planner.plan(
        new PlanRequest(
            "default", files, inputs.values(), List.of(), false, dir, false, inputs.hcl()),
        PriorState.empty());
  }

  private CliContext ctx(Map<String, String> env) {
    return new CliContext(
        dir,
        env,
        new PrintStream(PrintStream.nullOutputStream()),
        new PrintStream(PrintStream.nullOutputStream()),
        new BufferedReader(new StringReader("")));
  }
}
