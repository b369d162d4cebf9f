package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.DataAccess;
import dev.stagecraft.chaos.history.History;
import java.util.List;
import org.junit.jupiter.api.Test;

class TenantIsolationTest {
  private final TenantIsolation check = new TenantIsolation();

  @Test
  void tenantsReadingTheirOwnDataAreFine() {
    History h =
        history(100)
            .access(read("acme", "acme", "GET /api/v1/runs/r-1", 1))
            .access(read("globex", "globex", "GET /api/v1/runs/r-2", 2))
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void reportsATenantShownAnotherTenantsData() {
    DataAccess leak = read("globex", "acme", "GET /api/v1/runs/r-1/log", 7);
    History h =
        history(100).access(read("acme", "acme", "GET /api/v1/runs/r-1", 1)).access(leak).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.CROSS_TENANT_READ,
                "tenant globex was shown acme's data: GET /api/v1/runs/r-1/log at"
                    + " 2026-12-05T10:00:07Z",
                List.of("globex", "acme", "GET /api/v1/runs/r-1/log"),
                List.of(leak)));
  }
}
