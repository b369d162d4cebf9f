package dev.stagecraft.chaos.invariant;

import static dev.stagecraft.chaos.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.LockTenure;
import java.util.List;
import org.junit.jupiter.api.Test;

class OneLockHolderTest {
  private final OneLockHolder check = new OneLockHolder();

  @Test
  void holdersOneAfterAnotherWithRisingTokensAreFine() {
    History h =
        history(100)
            .lock(held("web", "r-1", 1, 0, 10L))
            .lock(held("web", "r-2", 2, 10, 20L)) // granted the instant r-1 released
            .lock(held("web", "r-3", 3, 25, null)) // still held at the end
            .lock(held("db", "r-4", 1, 5, 30L)) // another workspace
            .build();

    assertThat(check.check(h)).isEmpty();
  }

  @Test
  void reportsTwoHoldersAtOnce() {
    LockTenure zombie = held("web", "r-1", 1, 0, 40L);
    LockTenure next = held("web", "r-2", 2, 30, 50L);
    History h = history(100).lock(next).lock(zombie).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.TWO_LOCK_HOLDERS,
                "lock of acme/web: r-2 (token 2) was granted at 2026-12-05T10:00:30Z while r-1"
                    + " (token 1) held it until 2026-12-05T10:00:40Z",
                List.of("acme/web", "r-1", "r-2"),
                List.of(zombie, next)));
  }

  @Test
  void aHolderStillHoldingAtTheEndOverlapsEveryLaterGrant() {
    History h =
        history(100)
            .lock(held("web", "r-1", 1, 0, null))
            .lock(held("web", "r-2", 2, 30, 40L))
            .build();

    assertThat(check.check(h))
        .extracting(Violation::what)
        .containsExactly(
            "lock of acme/web: r-2 (token 2) was granted at 2026-12-05T10:00:30Z while r-1 (token"
                + " 1) held it until the end of the history");
  }

  @Test
  void reportsAGrantWhoseTokenDidNotRise() {
    LockTenure first = held("web", "r-1", 5, 0, 10L);
    LockTenure reused = held("web", "r-2", 5, 20, 30L);
    History h = history(100).lock(first).lock(reused).build();

    assertThat(check.check(h))
        .containsExactly(
            new Violation(
                ViolationKind.LOCK_TOKEN_NOT_INCREASING,
                "lock of acme/web: r-2 was granted token 5 at 2026-12-05T10:00:20Z, not above token"
                    + " 5 granted to r-1 at 2026-12-05T10:00:00Z",
                List.of("acme/web", "r-2"),
                List.of(first, reused)));
  }
}
