package dev.stagecraft.chaos.report;

import static dev.stagecraft.chaos.Fixtures.history;
import static dev.stagecraft.chaos.Fixtures.kill;
import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.Fault;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.RunTransition;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryTimesTest {

  private static RunRecord run(String id, String status) {
    return new RunRecord(id, "acme", "ws", t(0), t(1), null, status, 0, false);
  }

  @Test
  void eachRunInFlightAtAFaultWaitsUntilItsNextTransition() {
    History h =
        history(300)
            .runs(
                List.of(
                    run("r-1", "applied"),
                    run("r-2", "errored"),
                    run("r-3", "applied"),
                    run("r-4", "applied")))
            .transitions(
                List.of(
                    new RunTransition("r-1", "planning", t(10)),
                    new RunTransition("r-1", "applying", t(104)), // 4 s after the kill
                    new RunTransition("r-1", "applied", t(105)),
                    new RunTransition("r-2", "applying", t(50)),
                    new RunTransition("r-2", "errored", t(130)), // 30 s after the kill
                    new RunTransition("r-3", "applied", t(60)), // ended before: not in flight
                    new RunTransition("r-4", "pending", t(200)))) // began after: not in flight
            .faults(List.of(kill("executor-1", 100, 110)))
            .build();

    List<RecoveryTimes.Row> rows = RecoveryTimes.measure(h);

    assertThat(rows).hasSize(1);
    RecoveryTimes.Row kill = rows.getFirst();
    assertThat(kill.kind()).isEqualTo("kill");
    assertThat(kill.faults()).isEqualTo(1);
    assertThat(kill.runsInFlight()).isEqualTo(2);
    assertThat(kill.waits()).containsExactly(Duration.ofSeconds(4), Duration.ofSeconds(30));
    assertThat(kill.percentile(50)).isEqualTo(Duration.ofSeconds(4));
    assertThat(kill.percentile(99)).isEqualTo(Duration.ofSeconds(30));
    assertThat(kill.endedErrored()).isEqualTo(1);
    assertThat(RecoveryTimes.cells(rows))
        .containsExactly(List.of("kill", "1", "2", "4.0 s", "30.0 s", "30.0 s", "1"));
  }

  @Test
  void aKindWithoutRunsInFlightHasNoTimes() {
    History h = history(300).faults(List.of(new Fault("stop", "planner-1", t(10), t(22)))).build();
    assertThat(RecoveryTimes.cells(RecoveryTimes.measure(h)))
        .containsExactly(List.of("stop", "1", "0", "–", "–", "–", "0"));
  }
}
