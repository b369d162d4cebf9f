package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.view.PlanView;
import dev.stagecraft.planner.service.run.view.RunSummaryView;
import dev.stagecraft.planner.service.run.view.RunView;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The run views are written with the names and values the hand-built maps had: the live and
 * recorded fields inline, each group only when known, and {@code awaitingApproval} / {@code
 * approvalExpiresAt} left out (not null) when not known. The mapper is configured as
 * application.yml configures the framework's ({@code serialization-inclusion: always}, ISO times).
 */
class RunViewsJsonTest {
  private static final Instant T0 = Instant.parse("2026-11-29T06:05:04.123Z");
  private static final Instant T1 = Instant.parse("2026-11-29T06:06:00Z");

  private final ObjectMapper mapper =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .setSerializationInclusion(JsonInclude.Include.ALWAYS)
          .registerModule(new RunViewsJson());

  private final Run.RunSummary planning =
      new Run.RunSummary("run-1", "acme", "prod", "planning", false, null, null, null, T0);
  private final RunView.Recorded records =
      new RunView.Recorded(
          T1,
          "ship it",
          "deployer@acme",
          null,
          null,
          "cv-1",
          List.of("region"),
          null,
          List.of(),
          Map.of(),
          "4bf92f3577b34da6a3ce929d0e0e4736");
  private final List<RunView.Transition> transitions =
      List.of(new RunView.Transition(1, "pending", null, T0));

  @Test
  void aLiveRunShowsItsPlanTextEvenWhenNullAndLeavesOutAnApprovalDeadlineItDoesNotHave()
      throws Exception {
    String json = mapper.writeValueAsString(RunView.live(planning, null, records, transitions));

    assertThat(json)
        .isEqualTo(
            "{\"id\":\"run-1\",\"tenant\":\"acme\",\"workspace\":\"prod\",\"status\":\"planning\","
                + "\"terminal\":false,\"message\":null,\"planDigest\":null,\"planText\":null,"
                + "\"createdAt\":\"2026-11-29T06:05:04.123Z\",\"awaitingApproval\":false,"
                + "\"updatedAt\":\"2026-11-29T06:06:00Z\",\"requestMessage\":\"ship it\","
                + "\"requestedBy\":\"deployer@acme\",\"approvedBy\":null,\"approvedAt\":null,"
                + "\"configurationVersion\":\"cv-1\",\"variables\":[\"region\"],"
                + "\"source\":null,\"variableSources\":[],\"variableVersions\":{},"
                + "\"traceId\":\"4bf92f3577b34da6a3ce929d0e0e4736\","
                + "\"transitions\":[{\"sequence\":1,\"status\":\"pending\",\"message\":null,"
                + "\"at\":\"2026-11-29T06:05:04.123Z\"}]}");
  }

  @Test
  void aLiveRunAwaitingApprovalSaysUntilWhen() throws Exception {
    String json = mapper.writeValueAsString(RunView.live(planning, T1, null, List.of()));

    assertThat(mapper.readTree(json).get("awaitingApproval").asBoolean()).isTrue();
    assertThat(mapper.readTree(json).get("approvalExpiresAt").asText())
        .isEqualTo("2026-11-29T06:06:00Z");
    assertThat(mapper.readTree(json).has("updatedAt")).as("not recorded yet").isFalse();
  }

  @Test
  void aRecordedRunHasNoPlanTextAndNoAwaitingApprovalWhenTheRecordsCannotTell() throws Exception {
    RunSummaryView summary =
        new RunSummaryView("run-1", "acme", "prod", "planned", false, "m", "sha256:d", T0);

    var unknown =
        mapper.readTree(
            mapper.writeValueAsString(RunView.recorded(summary, records, null, transitions)));
    var known =
        mapper.readTree(
            mapper.writeValueAsString(RunView.recorded(summary, records, false, transitions)));

    assertThat(unknown.has("planText")).isFalse();
    assertThat(unknown.has("awaitingApproval")).isFalse();
    assertThat(unknown.has("approvalExpiresAt")).isFalse();
    assertThat(unknown.get("requestMessage").asText()).isEqualTo("ship it");
    assertThat(known.get("awaitingApproval").isBoolean()).isTrue();
    assertThat(known.get("awaitingApproval").asBoolean()).isFalse();
  }

  @Test
  void aPlanAnswerUsesSnakeCaseNames() throws Exception {
    var json =
        mapper.readTree(
            mapper.writeValueAsString(
                new PlanView("prod", 7, true, "sha256:d", Map.of("format_version", "1"), "r")));

    assertThat(json.fieldNames())
        .toIterable()
        .containsExactly("workspace", "prior_serial", "has_changes", "digest", "plan", "rendered");
    assertThat(json.get("prior_serial").asLong()).isEqualTo(7);
    assertThat(json.get("plan").get("format_version").asText()).isEqualTo("1");
  }
}
