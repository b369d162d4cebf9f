package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.PlannerTestDatabase;
import dev.stagecraft.planner.service.adapter.db.VariableSetStore;
import dev.stagecraft.planner.service.adapter.db.VariableStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.http.HttpResponse;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The variables API's answers (what the controllers return once the caller is authenticated), on a
 * real PostgreSQL: sensitive values are write-only, roles are enforced, readers see no values, and
 * another tenant's workspace variables and sets are 404 and never listed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VariablesApiTest {
  private static final String SECRET = "ssh-private-Jw82-kQ";
  private static final Principal READER = new Principal("acme", "reader");
  private static final Principal DEPLOYER = new Principal("acme", "deployer");
  private static final Principal ADMIN = new Principal("acme", "admin");
  private static final Principal OTHER_ADMIN = new Principal("umbrella", "admin");

  PlannerTestDatabase database;
  VariablesApi api;
  WorkspaceStore workspaces;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-variables-api-");
    HikariDataSource dataSource = database.dataSource();
    Clock clock = Clock.systemUTC();
    VariableStore variables =
        new VariableStore(
            dataSource, clock, SecretsKeyring.parse(SecretsKeyring.generateEntry("k1")));
    workspaces = new WorkspaceStore(dataSource, clock);
    api =
        new VariablesApi(variables, new VariableSetStore(dataSource, clock, variables), workspaces);
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  private static VariableBody value(String value, boolean sensitive) {
    return new VariableBody(value, null, null, sensitive, "what it is");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(HttpResponse<?> response) {
    assertThat(response.code()).as(String.valueOf(response.body())).isLessThan(300);
    return (Map<String, Object>) response.body();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Map<String, Object> body, String field) {
    return (List<Map<String, Object>>) body.get(field);
  }

  private static String text(HttpResponse<?> response) {
    return String.valueOf(response.body());
  }

  @Test
  void aSensitiveValueIsWriteOnly() throws Exception {
    Map<String, Object> put =
        json(api.putWorkspace(DEPLOYER, "web", "ssh_key", value(SECRET, true)));
    assertThat(put)
        .containsEntry("key", "ssh_key")
        .containsEntry("category", "terraform")
        .containsEntry("sensitive", true)
        .containsEntry("updatedBy", "deployer@acme")
        .containsEntry("version", 1L)
        .doesNotContainKey("value");
    json(
        api.putWorkspace(
            DEPLOYER, "web", "REGION", new VariableBody("eu", "env", null, null, null)));

    Map<String, Object> listed = json(api.listWorkspace(ADMIN, "web"));
    assertThat(listed).containsEntry("workspace", "web").containsEntry("version", 2L);
    assertThat(list(listed, "variables")).hasSize(2);
    assertThat(list(listed, "variables").getFirst()).doesNotContainKey("value");
    assertThat(list(listed, "variables").get(1)).containsEntry("value", "eu");
    assertThat(text(api.listWorkspace(ADMIN, "web"))).doesNotContain(SECRET);

    Map<String, Object> history = json(api.workspaceHistory(ADMIN, "web"));
    assertThat(list(history, "changes"))
        .extracting(c -> c.get("version"), c -> c.get("key"), c -> c.get("change"))
        .containsExactly(tuple(2L, "REGION", "set"), tuple(1L, "ssh_key", "set"));
    assertThat(text(api.workspaceHistory(ADMIN, "web"))).doesNotContain(SECRET);
    assertThat(list(history, "changes").getFirst())
        .containsOnlyKeys("version", "key", "category", "change", "sensitive", "by", "at");

    // it stays sensitive
    assertThat(api.putWorkspace(DEPLOYER, "web", "ssh_key", value("x", false)).code())
        .isEqualTo(409);
  }

  @Test
  void aReaderSeesNamesButNoValueAndCannotChangeAnything() throws Exception {
    json(api.putWorkspace(DEPLOYER, "docs", "region", value("eu-west-1", false)));

    Map<String, Object> listed = json(api.listWorkspace(READER, "docs"));
    assertThat(list(listed, "variables").getFirst())
        .containsEntry("key", "region")
        .doesNotContainKey("value");
    assertThat(api.putWorkspace(READER, "docs", "region", value("x", false)).code()).isEqualTo(403);
    assertThat(text(api.putWorkspace(READER, "docs", "region", value("x", false))))
        .contains("use a deployer or admin token");
    assertThat(api.deleteWorkspace(READER, "docs", "region", null).code()).isEqualTo(403);
    assertThat(api.createSet(READER, new VariableSetBody("s", null, null)).code()).isEqualTo(403);
    assertThat(json(api.listWorkspace(DEPLOYER, "docs")).toString()).contains("eu-west-1");
  }

  @Test
  void aDeployerSetsWorkspaceVariablesButCannotManageSets() throws Exception {
    assertThat(api.createSet(DEPLOYER, new VariableSetBody("keys", "", false)).code())
        .isEqualTo(403);
    assertThat(text(api.createSet(DEPLOYER, new VariableSetBody("keys", "", false))))
        .contains("use an admin token");
    assertThat(api.createSet(ADMIN, new VariableSetBody("deploy", "", false)).code())
        .isEqualTo(201);
    assertThat(api.putSetVariable(DEPLOYER, "deploy", "k", value("v", false)).code())
        .isEqualTo(403);
    assertThat(api.attach(DEPLOYER, "deploy", "web").code()).isEqualTo(403);
    assertThat(api.patchSet(DEPLOYER, "deploy", new VariableSetBody(null, null, true)).code())
        .isEqualTo(403);
    assertThat(api.deleteSet(DEPLOYER, "deploy").code()).isEqualTo(403);
    // reads are open to every role
    assertThat(api.getSet(READER, "deploy").code()).isEqualTo(200);
  }

  @Test
  void theSetsApiFollowsTheContract() throws Exception {
    assertThat(api.createSet(ADMIN, new VariableSetBody("shared", "for all", true)).code())
        .isEqualTo(201);
    assertThat(api.createSet(ADMIN, new VariableSetBody("shared", "", false)).code())
        .isEqualTo(409);
    assertThat(api.createSet(ADMIN, new VariableSetBody("-bad", "", false)).code()).isEqualTo(400);
    Map<String, Object> put =
        json(
            api.putSetVariable(
                ADMIN, "shared", "TOKEN", new VariableBody(SECRET, "env", false, true, null)));
    assertThat(put).containsEntry("category", "env").containsEntry("version", 1L);
    Map<String, Object> attached = json(api.attach(ADMIN, "shared", "api"));
    assertThat(attached)
        .containsEntry("name", "shared")
        .containsEntry("description", "for all")
        .containsEntry("global", true)
        .containsEntry("workspaces", List.of("api"))
        .containsEntry("version", 1L);
    assertThat(list(attached, "variables").getFirst()).doesNotContainKey("value");
    assertThat(text(api.getSet(ADMIN, "shared"))).doesNotContain(SECRET);
    assertThat(json(api.listWorkspace(READER, "api"))).containsEntry("version", 0L);
    assertThat(list(json(api.listWorkspace(READER, "api")), "variables")).isEmpty();

    assertThat(api.detach(ADMIN, "shared", "api").code()).isEqualTo(204);
    assertThat(api.detach(ADMIN, "shared", "api").code()).isEqualTo(404);
    assertThat(api.deleteSetVariable(ADMIN, "shared", "TOKEN", null).code())
        .as("a terraform variable TOKEN is not set")
        .isEqualTo(404);
    assertThat(api.deleteSetVariable(ADMIN, "shared", "TOKEN", "env").code()).isEqualTo(204);
    assertThat(list(json(api.setHistory(READER, "shared")), "changes"))
        .extracting(c -> c.get("change"))
        .containsExactly("unset", "set");
    assertThat(json(api.patchSet(ADMIN, "shared", new VariableSetBody(null, "d2", false))))
        .containsEntry("global", false)
        .containsEntry("description", "d2");
    assertThat(api.deleteSet(ADMIN, "shared").code()).isEqualTo(204);
    assertThat(api.getSet(ADMIN, "shared").code()).isEqualTo(404);
  }

  @Test
  void workspaceVariablesAnswer404AndNeverCreateForBadRequests() throws Exception {
    assertThat(api.listWorkspace(READER, "never-seen").code()).isEqualTo(404);
    assertThat(api.workspaceHistory(READER, "never-seen").code()).isEqualTo(404);
    assertThat(api.putWorkspace(DEPLOYER, "fresh", "bad key", value("x", false)).code())
        .isEqualTo(400);
    assertThat(workspaces.find("acme", "fresh")).isEmpty();
    assertThat(
            api.putWorkspace(
                    DEPLOYER, "fresh", "X", new VariableBody("{}", "env", true, null, null))
                .code())
        .isEqualTo(400);
    assertThat(api.putWorkspace(DEPLOYER, "fresh", "ok", value("1", false)).code()).isEqualTo(200);
    assertThat(workspaces.find("acme", "fresh")).isPresent();
    assertThat(api.deleteWorkspace(DEPLOYER, "fresh", "ok", "env").code()).isEqualTo(404);
    assertThat(api.deleteWorkspace(DEPLOYER, "fresh", "ok", "secret").code()).isEqualTo(400);
    assertThat(api.deleteWorkspace(DEPLOYER, "fresh", "ok", null).code()).isEqualTo(204);
    assertThat(api.deleteWorkspace(DEPLOYER, "fresh", "ok", null).code()).isEqualTo(404);
  }

  @Test
  void anotherTenantSeesNothingOfIt() throws Exception {
    json(api.putWorkspace(ADMIN, "billing", "db_password", value(SECRET, true)));
    assertThat(api.createSet(ADMIN, new VariableSetBody("acme-keys", "", false)).code())
        .isEqualTo(201);
    json(api.putSetVariable(ADMIN, "acme-keys", "k", value("v", false)));

    assertThat(api.listWorkspace(OTHER_ADMIN, "billing").code()).isEqualTo(404);
    assertThat(api.workspaceHistory(OTHER_ADMIN, "billing").code()).isEqualTo(404);
    assertThat(api.deleteWorkspace(OTHER_ADMIN, "billing", "db_password", null).code())
        .isEqualTo(404);
    assertThat(api.getSet(OTHER_ADMIN, "acme-keys").code()).isEqualTo(404);
    assertThat(api.setHistory(OTHER_ADMIN, "acme-keys").code()).isEqualTo(404);
    assertThat(api.putSetVariable(OTHER_ADMIN, "acme-keys", "k", value("x", false)).code())
        .isEqualTo(404);
    assertThat(api.deleteSetVariable(OTHER_ADMIN, "acme-keys", "k", null).code()).isEqualTo(404);
    assertThat(api.attach(OTHER_ADMIN, "acme-keys", "billing").code()).isEqualTo(404);
    assertThat(api.detach(OTHER_ADMIN, "acme-keys", "billing").code()).isEqualTo(404);
    assertThat(api.patchSet(OTHER_ADMIN, "acme-keys", new VariableSetBody(null, "x", null)).code())
        .isEqualTo(404);
    assertThat(api.deleteSet(OTHER_ADMIN, "acme-keys").code()).isEqualTo(404);
    assertThat(list(json(api.listSets(OTHER_ADMIN)), "variableSets")).isEmpty();

    // the same workspace name in the other tenant is its own, empty
    json(api.putWorkspace(OTHER_ADMIN, "billing", "db_password", value("theirs", false)));
    assertThat(list(json(api.listWorkspace(OTHER_ADMIN, "billing")), "variables"))
        .singleElement()
        .satisfies(v -> assertThat(v).containsEntry("value", "theirs"));
    assertThat(json(api.listWorkspace(ADMIN, "billing"))).containsEntry("version", 1L);
    assertThat(api.getSet(ADMIN, "acme-keys").code()).isEqualTo(200);
    assertThat(list(json(api.getSet(ADMIN, "acme-keys")), "variables")).hasSize(1);
  }
}
