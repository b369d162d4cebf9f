package dev.stagecraft.chaos.source;

import static dev.stagecraft.chaos.Fixtures.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.Fault;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultLogTest {

  @Test
  void readsInstantaneousAndLastingFaultsAndNamesEachUnusableLine() {
    FaultLog.Reading reading =
        FaultLog.parse(
            "faults.log",
            List.of(
                "# seed 42",
                "2026-12-05T10:00:05Z kill executor-2 2026-12-05T10:00:07Z",
                "2026-12-05T10:00:06Z kafka-restart kafka 2026-12-05T10:00:08Z",
                "",
                "2026-12-05T10:00:09Z sever ssh-1",
                "2026-12-05T10:00:10Z stop",
                "2026-12-05T10:00:11Z stop planner-1 soon",
                "2026-12-05T10:00:12Z stop planner-1 2026-12-05T10:00:01Z"));

    assertThat(reading.faults())
        .containsExactly(
            new Fault("kill", "executor-2", t(5), t(7)),
            new Fault("kafka-restart", "kafka", t(6), t(8)),
            new Fault("sever", "ssh-1", t(9), null));
    assertThat(reading.problems())
        .containsExactly(
            "faults.log:6: expected \"<at> <kind> <target> [<clearedAt>]\", found"
                + " \"2026-12-05T10:00:10Z stop\"",
            "faults.log:7: \"soon\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)",
            "faults.log:8: the fault is cleared at 2026-12-05T10:00:01Z, before it began at"
                + " 2026-12-05T10:00:12Z");
  }

  @Test
  void readsTheSoaksSeversAndBlackHolesAsItWritesThem() {
    // FaultInjector: "<at> <kind> <target> <clearedAt>", cleared at once, target ssh or http
    FaultLog.Reading reading =
        FaultLog.parse(
            "faults",
            List.of(
                "# <at> <kind> <target> <clearedAt>",
                "2026-12-05T10:00:05Z sever ssh 2026-12-05T10:00:05Z",
                "2026-12-05T10:00:20Z black-hole http 2026-12-05T10:00:20Z"));

    assertThat(reading.problems()).isEmpty();
    assertThat(reading.faults())
        .containsExactly(
            new Fault("sever", "ssh", t(5), t(5)), new Fault("black-hole", "http", t(20), t(20)));
  }
}
