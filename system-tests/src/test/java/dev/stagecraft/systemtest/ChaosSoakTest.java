package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.soak.ChaosSoak;
import dev.stagecraft.chaos.soak.FaultKind;
import dev.stagecraft.chaos.soak.SoakOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The short chaos soak of CI (issue 30 item 4): the soak harness ({@code dev/chaos}) on a stack of
 * its own — 2 planners, 3 executors, state and lock as processes — for 50 s of runs of 2 tenants ×
 * 4 workspaces with a fixed seed whose schedule stops planner-2 for longer than its lease and kills
 * executor-2 (seed 8: {@code +24.6s stop planner-2 for 12.4s, +37.1s kill executor-2}); then the
 * checker. Fails on any violation (the report is the assertion message), and when no run or no
 * fault happened, or when the backend and chat-ops doors (`doors` file) did nothing. The long soak
 * is {@code dev/chaos --minutes 30}.
 */
class ChaosSoakTest {

  @Test
  void aShortSoakWithAStoppedPlannerAndAKilledExecutorBreaksNoPromise() throws Exception {
    Path target = Path.of("target").toAbsolutePath();
    Files.createDirectories(target);
    SoakOptions options =
        SoakOptions.defaults(SharedStack.repoRoot())
            .withSeed(8)
            .withWorkload(Duration.ofSeconds(50))
            .withFaultGap(Duration.ofSeconds(20))
            .withFaultKinds(EnumSet.of(FaultKind.KILL, FaultKind.STOP))
            .withCounts(2, 4, 4, 400)
            .withDataDir(Files.createTempDirectory(target, "chaos-soak-"));

    ChaosSoak.Result result = ChaosSoak.run(options, System.out);

    assertThat(result.exitCode()).as(result.reportText()).isZero();
    assertThat(result.reportText()).contains("| violations | 0 |");
    assertThat(result.runsStarted()).as("runs flowed").isGreaterThanOrEqualTo(10);
    assertThat(result.runsByStatus()).containsKey("applied");
    assertThat(result.runsUnfinished()).isZero();
    assertThat(result.faultsByKind())
        .as("both faults of the schedule happened")
        .containsEntry("stop", 1)
        .containsEntry("kill", 1);
    // the checker saw what the workload did: every step's token in the journal
    assertThat(result.reportText()).containsPattern("\\| step executions \\| [1-9][0-9]* \\|");
    // and went through the other doors: backend pushes stored and chat-ops triggers acknowledged,
    // each of which the checker found downstream (no event-lost above)
    List<String> doors = Files.readAllLines(result.dataDir().resolve("doors"));
    assertThat(doors).as("backend pushes").anyMatch(l -> l.split(" ")[1].equals("push"));
    assertThat(doors).as("chat-ops triggers").anyMatch(l -> l.split(" ")[1].equals("trigger"));
    assertThat(result.reportText()).contains("| no lost events | event-lost | 0 |");
  }
}
