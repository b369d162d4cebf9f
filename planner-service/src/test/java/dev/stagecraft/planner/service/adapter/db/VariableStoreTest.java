package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Change;
import dev.stagecraft.planner.service.adapter.db.VariableStore.Owner;
import dev.stagecraft.planner.service.adapter.db.VariableStore.OwnerKind;
import dev.stagecraft.planner.service.workspace.ResolvedVariables;
import dev.stagecraft.planner.service.workspace.StoredVariable;
import dev.stagecraft.planner.service.workspace.VariableCategory;
import dev.stagecraft.planner.service.workspace.VariableRefused;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Workspace variables and variable sets in a real PostgreSQL migrated by Flyway: sensitive values
 * sealed at rest (in no column of any row), every change audited with the owner's version and never
 * the value, history newest first, global duplicates refused, and a run's variables resolved from
 * the stored ones with the sealed values opened.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VariableStoreTest {
  private static final String SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----Kq7-zV31x";
  private static final String[] TABLES = {
    "variables", "variable_changes", "variable_versions", "variable_sets", "variable_set_workspaces"
  };

  final Clock clock = Clock.fixed(Instant.parse("2026-12-06T10:00:00Z"), ZoneOffset.UTC);
  PlannerTestDatabase database;
  HikariDataSource dataSource;
  VariableStore store;
  VariableSetStore sets;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-variables-");
    dataSource = database.dataSource();
    store =
        new VariableStore(
            dataSource, clock, SecretsKeyring.parse(SecretsKeyring.generateEntry("k1")));
    sets = new VariableSetStore(dataSource, clock, store);
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  private static StoredVariable tf(String key, String value, boolean sensitive) {
    return new StoredVariable(key, VariableCategory.TERRAFORM, value, false, sensitive, "");
  }

  private static StoredVariable env(String key, String value, boolean sensitive) {
    return new StoredVariable(key, VariableCategory.ENV, value, false, sensitive, "");
  }

  private static Owner ws(String tenant, String name) {
    return new Owner(tenant, OwnerKind.WORKSPACE, name);
  }

  /** Every column of every row of the variables' tables, as text. */
  private String everyRow() throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = dataSource.getConnection()) {
      for (String table : TABLES) {
        try (var ps = c.prepareStatement("SELECT t::text FROM planner." + table + " t");
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.append(rs.getString(1)).append('\n');
          }
        }
      }
    }
    return out.toString();
  }

  @Test
  void aSensitiveValueIsInNoColumnOfAnyRowAndOpensForARun() throws Exception {
    Owner owner = ws("acme", "sealed");
    store.put(owner, tf("ssh_key", SECRET, true), "deployer@acme");
    store.put(owner, env("REGION", "eu-west-1", false), "deployer@acme");

    assertThat(everyRow()).doesNotContain(SECRET).doesNotContain("Kq7-zV31x").contains("eu-west-1");
    var listed = store.list(owner).variables();
    assertThat(listed).extracting(l -> l.variable().key()).containsExactly("ssh_key", "REGION");
    assertThat(listed.getFirst().variable().value()).isNull();

    ResolvedVariables resolved =
        new StoredWorkspaceVariables(store).resolve("acme", "sealed", Map.of(), Set.of());
    assertThat(resolved.terraformValues()).containsExactly(Map.entry("ssh_key", SECRET));
    assertThat(resolved.sensitiveNames()).containsExactly("ssh_key");
    assertThat(resolved.environment()).containsExactly(Map.entry("REGION", "eu-west-1"));
    assertThat(resolved.versions()).containsExactly(Map.entry("workspace", 2L));
  }

  @Test
  void aSealedValueMovedToAnotherOwnerDoesNotOpen() throws Exception {
    store.put(ws("acme", "moved"), tf("token", SECRET, true), "admin@acme");
    try (Connection c = dataSource.getConnection();
        var ps =
            c.prepareStatement(
                "UPDATE planner.variables SET tenant = 'intruder' WHERE tenant = 'acme'"
                    + " AND owner = 'moved'")) {
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    assertThatThrownBy(
            () ->
                new StoredWorkspaceVariables(store)
                    .resolve("intruder", "moved", Map.of(), Set.of()))
        .hasMessageContaining("variable token")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void withoutAKeyringASensitiveValueIsRefusedAndNothingIsStored() throws Exception {
    VariableStore clear = new VariableStore(dataSource, clock, SecretsKeyring.none());
    Owner owner = ws("acme", "no-keyring");
    assertThatThrownBy(() -> clear.put(owner, tf("key", SECRET, true), "admin@acme"))
        .isInstanceOf(VariableRefused.class)
        .hasMessageContaining("STAGECRAFT_SECRETS_KEYS");
    assertThat(clear.list(owner).variables()).isEmpty();
    assertThat(clear.history(owner)).isEmpty();
    assertThat(everyRow()).doesNotContain(SECRET);
  }

  @Test
  void everyChangeIsAuditedWithItsVersionNeverTheValueNewestFirst() throws Exception {
    Owner owner = ws("acme", "audited");
    assertThat(store.put(owner, tf("a", "v1-Yh3", false), "deployer@acme")).isEqualTo(1);
    assertThat(store.put(owner, tf("b", SECRET, true), "admin@acme")).isEqualTo(2);
    assertThat(store.put(owner, tf("a", "v2-Yh3", false), "deployer@acme")).isEqualTo(3);
    assertThat(store.unset(owner, VariableCategory.TERRAFORM, "b", "admin@acme")).contains(4L);
    assertThat(store.unset(owner, VariableCategory.TERRAFORM, "b", "admin@acme")).isEmpty();
    assertThat(store.unset(owner, VariableCategory.ENV, "a", "admin@acme")).isEmpty();

    List<Change> history = store.history(owner);
    assertThat(history).extracting(Change::version).containsExactly(4L, 3L, 2L, 1L);
    assertThat(history.getFirst())
        .isEqualTo(
            new Change(
                4, "b", VariableCategory.TERRAFORM, false, true, "admin@acme", clock.instant()));
    assertThat(history.get(1).set()).isTrue();
    assertThat(history.get(1).by()).isEqualTo("deployer@acme");
    assertThat(store.list(owner).version()).isEqualTo(4);
    // the audit table's rows hold no value
    List<String> audit = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        var ps =
            c.prepareStatement(
                "SELECT t::text FROM planner.variable_changes t WHERE owner = 'audited'");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        audit.add(rs.getString(1));
      }
    }
    assertThat(audit).hasSize(4).noneMatch(r -> r.contains("Yh3") || r.contains("Kq7"));
  }

  @Test
  void aSensitiveVariableCannotBeMadeReadable() throws Exception {
    Owner owner = ws("acme", "downgrade");
    store.put(owner, tf("key", SECRET, true), "admin@acme");
    assertThatThrownBy(() -> store.put(owner, tf("key", "plain", false), "admin@acme"))
        .isInstanceOf(VariableRefused.class)
        .hasMessageContaining("stays so");
    assertThat(store.list(owner).version()).isEqualTo(1);
  }

  @Test
  void twoGlobalSetsNeverDefineTheSameVariable() throws Exception {
    assertThat(sets.create("globex", "base", "", true, "admin@globex")).isTrue();
    assertThat(sets.create("globex", "extra", "", true, "admin@globex")).isTrue();
    assertThat(sets.create("globex", "local", "", false, "admin@globex")).isTrue();
    assertThat(sets.create("globex", "local", "", false, "admin@globex")).isFalse();
    Owner base = new Owner("globex", OwnerKind.SET, "base");
    store.put(base, env("TOKEN", "a", false), "admin@globex");

    assertThatThrownBy(
            () ->
                store.put(
                    new Owner("globex", OwnerKind.SET, "extra"),
                    env("TOKEN", "b", false),
                    "admin@globex"))
        .isInstanceOf(VariableRefused.class)
        .hasMessageContaining("\"base\" defines env variable TOKEN");
    // a set that is not global may; making it global then is refused
    store.put(
        new Owner("globex", OwnerKind.SET, "local"), env("TOKEN", "c", false), "admin@globex");
    assertThatThrownBy(() -> sets.update("globex", "local", null, true, "admin@globex"))
        .isInstanceOf(VariableRefused.class)
        .hasMessageContaining("\"base\" defines env variable TOKEN");
    assertThat(sets.find("globex", "local").orElseThrow().global()).isFalse();
    // a set of another tenant is no duplicate
    sets.create("other", "base2", "", true, "admin@other");
    store.put(new Owner("other", OwnerKind.SET, "base2"), env("TOKEN", "d", false), "admin@other");
  }

  @Test
  void aRunReadsTheWorkspacesAttachedAndGlobalSetsAndDeletingASetAuditsItsVariables()
      throws Exception {
    sets.create("initech", "global", "", true, "admin@initech");
    sets.create("initech", "keys", "deploy keys", false, "admin@initech");
    sets.create("initech", "unattached", "", false, "admin@initech");
    store.put(new Owner("initech", OwnerKind.SET, "global"), tf("region", "g", false), "a@i");
    store.put(new Owner("initech", OwnerKind.SET, "global"), tf("owner", "g", false), "a@i");
    store.put(new Owner("initech", OwnerKind.SET, "keys"), tf("region", "k", false), "a@i");
    store.put(new Owner("initech", OwnerKind.SET, "keys"), tf("ssh_key", SECRET, true), "a@i");
    store.put(new Owner("initech", OwnerKind.SET, "unattached"), tf("owner", "u", false), "a@i");
    assertThat(sets.attach("initech", "keys", "app", "a@i")).isTrue();
    assertThat(sets.attach("initech", "keys", "app", "a@i")).isFalse();
    assertThatThrownBy(() -> sets.attach("initech", "nope", "app", "a@i"))
        .isInstanceOf(VariableRefused.class);
    assertThat(sets.find("initech", "keys").orElseThrow().workspaces()).containsExactly("app");

    var resolved =
        new StoredWorkspaceVariables(store).resolve("initech", "app", Map.of(), Set.of());
    assertThat(resolved.terraformValues())
        .containsEntry("region", "k")
        .containsEntry("owner", "g")
        .containsEntry("ssh_key", SECRET);
    assertThat(resolved.versions()).containsOnlyKeys("set:global", "set:keys");

    assertThat(sets.delete("initech", "keys", "admin@initech")).isTrue();
    assertThat(sets.find("initech", "keys")).isEmpty();
    Owner keys = new Owner("initech", OwnerKind.SET, "keys");
    assertThat(store.history(keys))
        .extracting(Change::version, Change::set)
        .containsExactly(tuple(4L, false), tuple(3L, false), tuple(2L, true), tuple(1L, true));
    assertThat(
            new StoredWorkspaceVariables(store)
                .resolve("initech", "app", Map.of(), Set.of())
                .terraformValues())
        .containsOnlyKeys("region", "owner");
  }

  @Test
  void concurrentChangesTakeEachVersionOnceAndNeverLetTwoGlobalSetsShareAVariable()
      throws Exception {
    Owner owner = ws("hooli", "busy");
    List<Callable<Object>> puts = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      String key = "k" + i;
      puts.add(() -> store.put(owner, tf(key, "v", false), "deployer@hooli"));
    }
    try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
      for (Future<Object> f : pool.invokeAll(puts)) {
        f.get();
      }
      assertThat(store.history(owner))
          .extracting(Change::version)
          .containsExactly(8L, 7L, 6L, 5L, 4L, 3L, 2L, 1L);
      assertThat(store.list(owner).version()).isEqualTo(8);

      for (int round = 0; round < 5; round++) {
        String a = "ga" + round;
        String b = "gb" + round;
        String shared = "SHARED_" + round;
        sets.create("hooli", a, "", true, "admin@hooli");
        sets.create("hooli", b, "", true, "admin@hooli");
        List<Callable<Object>> racing = new ArrayList<>();
        for (String set : List.of(a, b)) {
          racing.add(
              () -> {
                try {
                  return store.put(
                      new Owner("hooli", OwnerKind.SET, set),
                      env(shared, "x", false),
                      "admin@hooli");
                } catch (VariableRefused e) {
                  return e;
                }
              });
        }
        List<Object> outcomes = new ArrayList<>();
        for (Future<Object> f : pool.invokeAll(racing)) {
          outcomes.add(f.get());
        }
        assertThat(outcomes).filteredOn(VariableRefused.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(Long.class::isInstance).containsExactly(1L);
      }
    }
  }
}
