package dev.stagecraft.chaos.report;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.Fault;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.invariant.ChaosChecker;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChaosReportTest {

  private static History soak() {
    return history(100)
        .fault(kill("executor-1", 5, 10))
        .fault(kill("planner-2", 7, 12))
        .fault(new Fault("kafka-restart", "broker", t(20), t(24)))
        .run(applied("r-1", "web", 0, 1, 9))
        .run(running("r-2", "web", 1, 9))
        .execution(ran("r-1", "a#0", "executor-1", 2))
        .execution(ran("r-1", "a#0", "executor-2", 3))
        .report(reported("r-1", "a#0", "create", "succeeded", false, 4))
        .event(up("e-1", 2))
        .build();
  }

  @Test
  void rendersSummaryCountsAndEachViolationWithItsEvidence() throws IOException {
    History h = soak();
    String report =
        ChaosReport.markdown(
            "Chaos soak — seed 7", h, ChaosChecker.all(Duration.ofSeconds(20)).check(h));

    assertThat(report).isEqualTo(golden());
  }

  @Test
  void aCleanHistoryReportsNoneAndStillListsEveryKind() {
    History h = history(10).run(applied("r-1", "web", 0, 1, 2)).build();
    String report =
        ChaosReport.markdown("clean", h, ChaosChecker.all(Duration.ofSeconds(20)).check(h));

    assertThat(report)
        .contains("| violations | 0 |")
        .contains("| faults | 0 |")
        .contains("| (none) | 0 |")
        .contains("| runs end | run-not-ended | 0 |")
        .contains("| tenant isolation | cross-tenant-read | 0 |")
        .endsWith("## Violations\n\nNone.\n");
  }

  @Test
  void listsTheLinesTheSourcesCouldNotUseAfterTheViolations() {
    History h = history(10).run(applied("r-1", "web", 0, 1, 2)).build();
    String report =
        ChaosReport.markdown(
            "with problems",
            h,
            List.of(),
            List.of("journal.log:4: \"yesterday\" is not an ISO-8601 instant"));

    assertThat(report)
        .contains("| source problems | 1 |")
        .endsWith(
            "## Violations\n\nNone.\n\n## Source problems\n\n"
                + "- journal.log:4: \"yesterday\" is not an ISO-8601 instant\n");
  }

  private static String golden() throws IOException {
    try (InputStream in = ChaosReportTest.class.getResourceAsStream("/report/golden.md")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
