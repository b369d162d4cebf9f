package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunFixtures;
import dev.stagecraft.planner.service.run.RunRequest;
import dev.stagecraft.planner.service.run.RunStatus;
import dev.stagecraft.planner.service.run.journal.RunObserver;
import dev.stagecraft.servicekit.http.Problem;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link RunMetrics}: runs counted by status, and a {@code tenant} tag only for the tenants an
 * operator named ({@code STAGECRAFT_METRICS_TENANTS}), every other tenant counted as {@code other}.
 */
class RunMetricsTest {
  private final Clock clock = Clock.fixed(Instant.parse("2026-12-06T20:00:00Z"), ZoneOffset.UTC);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @Test
  void withoutNamedTenantsNoMeterHasATenantTag() {
    RunMetrics metrics = new RunMetrics(meters, Set.of(), RunObserver.NONE);
    apply(metrics, run("r1", "acme"));
    apply(metrics, run("r2", "globex"));

    assertThat(meters.get("stagecraft.runs.started").counter().count()).isEqualTo(2);
    assertThat(meters.get("stagecraft.runs.ended").tag("status", "applied").counter().count())
        .isEqualTo(2);
    assertThat(meters.getMeters())
        .allSatisfy(m -> assertThat(m.getId().getTag("tenant")).as(name(m)).isNull());
  }

  @Test
  void aNamedTenantIsItsOwnTagAndEveryOtherTenantIsOther() {
    RunMetrics metrics = new RunMetrics(meters, Set.of("acme"), RunObserver.NONE);
    apply(metrics, run("r1", "acme"));
    apply(metrics, run("r2", "globex"));
    apply(metrics, run("r3", "initech"));

    assertThat(meters.get("stagecraft.runs.started").tag("tenant", "acme").counter().count())
        .isEqualTo(1);
    assertThat(meters.get("stagecraft.runs.started").tag("tenant", "other").counter().count())
        .isEqualTo(2);
    assertThat(
            meters
                .get("stagecraft.runs.ended")
                .tags("status", "applied", "tenant", "other")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(meters.get("stagecraft.run.duration").tag("tenant", "acme").timer().count())
        .isEqualTo(1);
    assertThat(meters.find("stagecraft.runs.started").tag("tenant", "globex").counter()).isNull();
  }

  @Test
  void anInvalidTenantNameInTheSettingIsRefusedNamingTheSetting() {
    assertThat(PlannerBeans.tenantNames(" acme, ,globex ")).containsExactly("acme", "globex");
    assertThat(PlannerBeans.tenantNames("")).isEmpty();
    assertThatThrownBy(() -> PlannerBeans.tenantNames("acme,a b"))
        .isInstanceOf(Problem.class)
        .hasMessageContaining("STAGECRAFT_METRICS_TENANTS")
        .hasMessageContaining("'a b'");
  }

  private void apply(RunMetrics metrics, Run run) {
    Instant at = clock.instant();
    metrics.transitioned(run, 1, RunStatus.PENDING, null, at);
    metrics.transitioned(run, 2, RunStatus.APPLYING, null, at);
    metrics.transitioned(run, 3, RunStatus.APPLIED, null, at);
  }

  private Run run(String id, String tenant) {
    RunRequest request =
        new RunRequest(
            tenant,
            "ws",
            Map.of("main.tf", "# ws\n"),
            Map.of(),
            Map.of(),
            true,
            List.of(),
            null,
            null,
            "deployer@" + tenant,
            1,
            null);
    return RunFixtures.run(id, request, clock.instant(), clock);
  }

  private static String name(Meter m) {
    return m.getId().getName();
  }
}
