package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Workspaces' git sources in a real PostgreSQL migrated by Flyway: the credentials sealed (in no
 * row in clear), opened only by {@code gitSourceOf}, per tenant, matched by normalised URL and
 * branch for push webhooks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkspaceSourceStoreTest {
  private static final String TOKEN = "ghp_Tok3n-Zq9xW";

  final Clock clock = Clock.fixed(Instant.parse("2026-12-06T10:00:00Z"), ZoneOffset.UTC);
  final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  PlannerTestDatabase database;
  HikariDataSource dataSource;
  WorkspaceSourceStore store;
  WorkspaceStore workspaces;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-sources-");
    dataSource = database.dataSource();
    store = new WorkspaceSourceStore(dataSource, clock, keyring);
    workspaces = new WorkspaceStore(dataSource, clock);
    for (String tenant : List.of("acme", "other")) {
      for (String ws : List.of("web", "db", "docs", "tagged")) {
        workspaces.create(tenant, ws, true, 10, false);
      }
    }
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  private String rows() throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = dataSource.getConnection();
        var ps = c.prepareStatement("SELECT s::text FROM planner.workspace_sources s");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.append(rs.getString(1)).append('\n');
      }
    }
    return out.toString();
  }

  @Test
  void aTokenIsSealedAtRestAndOpenedForTheFetch() throws Exception {
    GitSource source =
        new GitSource(
            "https://github.com/acme/infra.git",
            "main",
            "deploy/",
            new GitCredentials.HttpsToken("bot", TOKEN),
            false);

    store.put("acme", "web", source, "admin@acme");

    assertThat(rows()).contains("https://github.com/acme/infra.git").doesNotContain(TOKEN);
    GitSource read = store.gitSourceOf("acme", "web").orElseThrow();
    assertThat(read.url()).isEqualTo("https://github.com/acme/infra.git");
    assertThat(read.ref()).isEqualTo("refs/heads/main");
    assertThat(read.directory()).isEqualTo("deploy");
    assertThat(read.credentials()).isEqualTo(new GitCredentials.HttpsToken("bot", TOKEN));
    var view = store.view("acme", "web").orElseThrow();
    assertThat(view.credentials()).isEqualTo("https-token");
    assertThat(view.toString()).doesNotContain(TOKEN);
    assertThat(view.updatedBy()).isEqualTo("admin@acme");

    // another tenant's workspace of the same name has no source; nor does a keyring without the key
    assertThat(store.gitSourceOf("other", "web")).isEmpty();
    assertThat(store.view("other", "web")).isEmpty();
    WorkspaceSourceStore otherKeys =
        new WorkspaceSourceStore(
            dataSource, clock, SecretsKeyring.parse(SecretsKeyring.generateEntry("k2")));
    assertThatThrownBy(() -> otherKeys.gitSourceOf("acme", "web"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot be opened")
        .hasMessageNotContaining(TOKEN);
  }

  @Test
  void credentialsAreRefusedWithoutAKeyringAndAPublicSourceIsStoredWithout() throws Exception {
    WorkspaceSourceStore noKeys =
        new WorkspaceSourceStore(dataSource, clock, SecretsKeyring.none());
    GitSource withToken =
        new GitSource(
            "https://github.com/acme/docs.git",
            "main",
            "",
            new GitCredentials.HttpsToken(null, TOKEN),
            false);

    assertThatThrownBy(() -> noKeys.put("acme", "docs", withToken, "admin@acme"))
        .isInstanceOf(WorkspaceSourceStore.CannotSeal.class)
        .hasMessageContaining("STAGECRAFT_SECRETS_KEYS");
    assertThat(store.view("acme", "docs")).isEmpty();

    noKeys.put(
        "acme",
        "docs",
        new GitSource("https://github.com/acme/docs.git", "main", "", null, true),
        "admin@acme");
    GitSource read = noKeys.gitSourceOf("acme", "docs").orElseThrow();
    assertThat(read.credentials()).isEqualTo(new GitCredentials.None());
    assertThat(read.triggerOnAnyPath()).isTrue();

    assertThat(store.remove("acme", "docs")).isTrue();
    assertThat(store.gitSourceOf("acme", "docs")).isEmpty();
    assertThat(store.remove("acme", "docs")).isFalse();
  }

  @Test
  void followersAreMatchedByNormalisedUrlAndBranchWithinTheTenant() throws Exception {
    store.put(
        "acme",
        "db",
        new GitSource("git@GitHub.com:acme/platform.git", "refs/heads/main", "db", null, false),
        "admin@acme");
    store.put(
        "acme",
        "tagged",
        new GitSource("https://github.com/acme/platform", "refs/tags/v1", "", null, false),
        "admin@acme");
    store.put(
        "other",
        "db",
        new GitSource("https://github.com/acme/platform.git", "main", "db", null, false),
        "admin@other");

    List<String> urls =
        List.of(
            "https://github.com/acme/platform.git",
            "git://github.com/acme/platform.git",
            "git@github.com:acme/platform.git",
            "https://github.com/acme/platform");
    assertThat(store.following("acme", urls, "main")).containsExactly("db");
    assertThat(store.following("acme", urls, "release")).isEmpty();
    assertThat(store.following("acme", List.of("https://github.com/acme/other"), "main")).isEmpty();
    assertThat(store.following("other", urls, "main")).containsExactly("db");
    // a tag is followed by no branch push
    assertThat(store.following("acme", urls, "v1")).isEmpty();
  }
}
