package dev.stagecraft.chaos.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.DataAccess;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.invariant.TenantIsolation;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadLogTest {

  @Test
  void readsEachReadAndNamesTheLinesItCannotUse() {
    ReadLog.Reading r =
        ReadLog.parse(
            "reads",
            List.of(
                "# <at> <readerTenant> <ownerTenant> <resource>",
                "2026-12-05T10:00:05Z soak-1 soak-1 GET /api/v1/runs/run-1",
                "",
                "2026-12-05T10:00:06Z soak-2 soak-1 GET /api/v1/runs/run-1",
                "yesterday soak-1 soak-1 GET /api/v1/runs/run-2",
                "2026-12-05T10:00:07Z soak-1"));
    assertThat(r.accesses())
        .containsExactly(
            new DataAccess(
                "soak-1",
                "soak-1",
                "GET /api/v1/runs/run-1",
                Instant.parse("2026-12-05T10:00:05Z")),
            new DataAccess(
                "soak-2",
                "soak-1",
                "GET /api/v1/runs/run-1",
                Instant.parse("2026-12-05T10:00:06Z")));
    assertThat(r.problems())
        .containsExactly(
            "reads:5: \"yesterday\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)",
            "reads:6: expected \"<at> <readerTenant> <ownerTenant> <resource>\", found"
                + " \"2026-12-05T10:00:07Z soak-1\"");
    // the second read is another tenant's data: the isolation check reports it
    History h =
        History.builder(Instant.parse("2026-12-05T11:00:00Z")).accesses(r.accesses()).build();
    assertThat(new TenantIsolation().check(h)).hasSize(1);
  }
}
