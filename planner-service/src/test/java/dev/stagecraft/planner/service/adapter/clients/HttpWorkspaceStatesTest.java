package dev.stagecraft.planner.service.adapter.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.planner.service.run.StateAddresses;
import dev.stagecraft.planner.service.run.WorkspaceStates;
import dev.stagecraft.servicekit.http.InternalHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The planner's state client rides out a restart of state-service or of its database: a request
 * that means the same when sent twice is repeated while state-service cannot be reached or answers
 * 503, so a run opened during the restart opens once it is back instead of ending {@code errored}
 * (what the chaos soak saw: "cannot reach …/run-openings after 5 attempt(s)"). State-service is an
 * HTTP stand-in answering as it does (docs/internal-api.md).
 */
class HttpWorkspaceStatesTest {
  private static final String WS = "/internal/v1/tenants/acme/workspaces/prod";
  private static final String DATABASE_DOWN =
      "{\"type\":\"https://stagecraft.dev/problems/database-unavailable\",\"status\":503}";
  private static final String OPENED =
      "{\"fencingToken\":7,\"credential\":\"scr_x\",\"hostKeys\":[],\"serial\":0,\"state\":null}";

  private ScriptedService service;

  @BeforeEach
  void start() throws IOException {
    service = ScriptedService.start();
  }

  @AfterEach
  void stop() {
    service.close();
  }

  private HttpWorkspaceStates client(int attemptsPerRequest, Duration budget) {
    InternalHttp http = new InternalHttp(service.url(), "token", attemptsPerRequest);
    return new HttpWorkspaceStates(
        http, new StateAddresses(http.baseUrl()), new RideOut(budget, Duration.ofMillis(20)));
  }

  @Test
  void aRunOpeningIsRepeatedWhileTheDatabaseRestartsWithTheSameRunAndToken() {
    service.script(503, DATABASE_DOWN);
    service.script(503, DATABASE_DOWN);
    service.script(201, OPENED);

    WorkspaceStates.OpenedRun opened =
        client(5, Duration.ofSeconds(10)).openRun("acme", "prod", "run-1", 7);

    assertThat(opened.runCredential()).isEqualTo("scr_x");
    assertThat(service.seen())
        .extracting(
            s -> s.path() + " " + s.body().get("runId") + " " + s.body().get("fencingToken"))
        .containsExactly(
            WS + "/run-openings \"run-1\" 7",
            WS + "/run-openings \"run-1\" 7",
            WS + "/run-openings \"run-1\" 7");
  }

  @Test
  void aRunOpeningWaitsForAStateServiceThatCannotBeReachedYet() throws Exception {
    HttpWorkspaceStates once = client(1, Duration.ofSeconds(10));
    service.goDown(); // state-service restarts: its connections are cut for a while
    CompletableFuture<WorkspaceStates.OpenedRun> opening =
        CompletableFuture.supplyAsync(() -> once.openRun("acme", "prod", "run-1", 7));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> service.connectionsCut() > 0);
    service.script(201, OPENED);
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> opening.isDone() || service.listenAgain());
    assertThat(opening.get(10, TimeUnit.SECONDS).runCredential()).isEqualTo("scr_x");
  }

  @Test
  void readsAndFencingRideOutA503Too() {
    service.script(503, DATABASE_DOWN);
    service.script(200, "{\"version\":4}");
    service.script(503, DATABASE_DOWN);
    service.script(200, "{\"token\":9}");
    HttpWorkspaceStates states = client(5, Duration.ofSeconds(10));

    assertThat(states.read("acme", "prod")).isEqualTo("{\"version\":4}");
    states.registerFencingToken("acme", "prod", 9);

    assertThat(service.seen())
        .extracting(ScriptedService.Seen::path)
        .containsExactly(WS + "/state", WS + "/state", WS + "/fencing", WS + "/fencing");
  }

  @Test
  void a503ThatOutlastsTheBudgetIsAnErrorNamingIt() {
    service.script(503, DATABASE_DOWN);
    assertThatThrownBy(() -> client(5, Duration.ZERO).openRun("acme", "prod", "run-1", 7))
        .hasMessageContaining("503")
        .hasMessageContaining("database-unavailable");
    assertThat(service.seen()).hasSize(1);
  }

  @Test
  void aTaintChangeIsSentOnceItsRepetitionWouldNotMeanTheSame() {
    service.script(503, DATABASE_DOWN);
    service.script(200, "{\"serial\":3}");
    assertThatThrownBy(
            () ->
                client(5, Duration.ofSeconds(10))
                    .changeTaint("acme", "prod", "null_resource.a", true, 7, "alice"))
        .hasMessageContaining("503");
    assertThat(service.seen()).hasSize(1);
  }
}
