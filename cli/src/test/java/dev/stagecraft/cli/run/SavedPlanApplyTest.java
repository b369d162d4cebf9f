package dev.stagecraft.cli.run;

import static dev.stagecraft.cli.run.StubPlannerHttp.reply;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apply FILE} plans again first and compares that plan with the saved one: when they differ
 * it says which changes differ — not only that two digests do — and starts no run; when they are
 * the same it starts the run bound to the saved digest. The server is the JDK's HTTP server
 * answering as the planner does, with plans made by the real planner.
 */
class SavedPlanApplyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "hunter2-Zk44";
  private static final String CONFIG =
      """
      variable "pw" {
        sensitive = true
      }
      resource "stateful_provisioning" "app" {
        state_key = "%s"
      }
      resource "terraform_data" "db" {
        input = var.pw
      }
      output "key" { value = stateful_provisioning.app.state_key }
      %s
      """;

  @TempDir Path dir;
  private final HttpServer server;
  private final List<String> runRequests = Collections.synchronizedList(new ArrayList<>());
  private volatile JsonNode planAnswer;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  SavedPlanApplyTest() throws IOException {
    server = StubPlannerHttp.create();
    server.createContext(
        "/api/v1/plans", ex -> reply(ex, 200, JSON.writeValueAsString(planAnswer)));
    server.createContext(
        "/api/v1/runs",
        ex -> {
          runRequests.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          reply(ex, 409, "{\"title\":\"Conflict\",\"detail\":\"stub: no run started\"}");
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  /** The answer of {@code POST /plans} for {@code config} against a state at {@code serial}. */
  private static JsonNode planned(String config, long serial) {
    String state =
        "{\"version\":4,\"serial\":"
            + serial
            + ",\"lineage\":\"l-1\",\"outputs\":{\"key\":{\"value\":\"v0\",\"type\":\"string\"}},"
            + "\"resources\":[]}";
    PlanResult result =
        Planner.plan(
            new PlanRequest(
                "default", Map.of("main.tf", config), Map.of("pw", SECRET), List.of(), false, null),
            PriorState.fromV4Json(state));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("workspace", "default");
    answer.put("prior_serial", serial);
    answer.put("has_changes", plan.applies());
    answer.put("digest", plan.digest());
    answer.put("plan", PlanJson.toMap(plan));
    answer.put("rendered", "(rendered)");
    return JSON.valueToTree(answer);
  }

  private Path save(String config, long serial) throws Exception {
    Files.writeString(dir.resolve("main.tf"), config);
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("workspace", "default");
    request.put("files", Map.of("main.tf", config));
    request.put("supportFiles", ConfigDirectory.readSupportFiles(dir));
    request.put("variables", Map.of());
    Path file = dir.resolve("p.plan");
    SavedPlan.write(file, request, planned(config, serial), Map.of("pw", SECRET));
    return file;
  }

  private int apply() throws Exception {
    CliContext ctx =
        new CliContext(
            dir,
            Map.of(
                "STAGECRAFT_ADDR",
                StubPlannerHttp.base(server),
                "STAGECRAFT_TOKEN",
                "sc_test",
                "TF_VAR_pw",
                SECRET),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")));
    return new ApplyCommand(false).run(ctx, List.of("p.plan"));
  }

  @Test
  void aPlanThatDiffersNowIsRefusedSayingWhichChangesDifferAndNoRunStarts() throws Exception {
    save(CONFIG.formatted("v1", ""), 3);
    planAnswer = planned(CONFIG.formatted("v2", "resource \"null_resource\" \"extra\" {}"), 3);

    int code = apply();

    assertThat(code).isEqualTo(1);
    assertThat(runRequests).as("no run is started").isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            "Error: The saved plan p.plan no longer matches what applying it would do now (the"
                + " configuration, variables or state differ). What differs from the saved plan:\n"
                + "  stateful_provisioning.app: other values -> values that differ in state_key"
                + " (not shown here)\n"
                + "  null_resource.extra: not planned -> create\n"
                + "  output.key: update (known) -> update (known), another value (not shown"
                + " here)\n"
                + "Nothing was applied. Create a new plan and apply that.")
        .doesNotContain(SECRET)
        .doesNotContain("\"v2\"");
  }

  @Test
  void aPlanMadeAgainstAStateThatMovedIsStaleAndSaysSo() throws Exception {
    save(CONFIG.formatted("v1", ""), 3);
    planAnswer = planned(CONFIG.formatted("v1", ""), 4);

    int code = apply();

    assertThat(code).isEqualTo(1);
    assertThat(runRequests).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            "The saved plan p.plan is stale: the workspace's state moved from serial 3 to 4 since"
                + " it was planned. What differs from the saved plan:\n"
                + "  state: planned against serial 3 of lineage l-1 -> planned against serial 4 of"
                + " lineage l-1\n"
                + "Nothing was applied.");
  }

  @Test
  void theSamePlanStartsTheRunBoundToTheSavedDigest() throws Exception {
    Path file = save(CONFIG.formatted("v1", ""), 3);
    planAnswer = planned(CONFIG.formatted("v1", ""), 3);

    int code = apply();

    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("stub: no run started")
        .doesNotContain("differs");
    assertThat(runRequests).hasSize(1);
    JsonNode run = JSON.readTree(runRequests.get(0));
    assertThat(run.path("expectedDigest").asText())
        .isEqualTo(JSON.readTree(file.toFile()).path("digest").asText());
    assertThat(run.path("expectedSerial").asLong()).isEqualTo(3);
  }

  @Test
  void aSavedPlanThatCannotBeReadBackStillRefusesByItsDigest() throws Exception {
    Path file = save(CONFIG.formatted("v1", ""), 3);
    Files.writeString(
        file,
        Files.readString(file)
            .replace("\"format_version\" : \"1.2\"", "\"format_version\" : \"9\""));
    planAnswer = planned(CONFIG.formatted("v2", ""), 3);

    int code = apply();

    assertThat(code).isEqualTo(1);
    assertThat(runRequests).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            "  (the saved plan cannot be read back to compare it: not a plan document:"
                + " format_version: \"9\" is not a version of Terraform's JSON plan format that is"
                + " read (1.x))");
  }
}
