package dev.stagecraft.planner.service.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Configuration versions sealed at rest (docs/adr/0024), in a real PostgreSQL migrated by Flyway:
 * no file content in clear in the row, the id stays the digest of the clear content, old clear rows
 * stay readable, and a missing key is named.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfigurationVersionSealingTest {
  private static final String KEY_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nFAKE-KEY-Zq9xW\n";
  private static final String SECRET_TF =
      "resource \"null_resource\" \"a\" { triggers = { x = \"Pw-7Hq\" } }";

  final Clock clock = Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC);
  final String k1 = SecretsKeyring.generateEntry("k1");
  final String k0 = SecretsKeyring.generateEntry("k0");
  PlannerTestDatabase database;
  HikariDataSource dataSource;

  @BeforeAll
  void startDatabase() throws Exception {
    database = PlannerTestDatabase.start("planner-cv-sealing-");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  private static ConfigurationContent content(String marker) {
    return new ConfigurationContent(
        Map.of("main.tf", SECRET_TF + " # " + marker),
        Map.of("keys/deploy", KEY_TEXT.getBytes(StandardCharsets.UTF_8)));
  }

  private String rowText(String tenant, String id) throws Exception {
    try (Connection c = dataSource.getConnection();
        var ps =
            c.prepareStatement(
                "SELECT files::text || support_files::text || coalesce(sealed_content, '')"
                    + " FROM planner.configuration_versions WHERE tenant = ? AND id = ?")) {
      ps.setString(1, tenant);
      ps.setString(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getString(1);
      }
    }
  }

  @Test
  void withAKeyTheRowHoldsNoContentAndOpensToTheSameFiles() throws Exception {
    ConfigurationVersionStore store =
        new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k1));
    ConfigurationContent content = content("sealed");

    var stored = store.store("acme", content, "deployer@acme");

    assertThat(stored.id()).isEqualTo(content.id());
    String row = rowText("acme", stored.id());
    String keyBase64 =
        Base64.getEncoder().encodeToString(KEY_TEXT.getBytes(StandardCharsets.UTF_8));
    assertThat(row)
        .doesNotContain("FAKE-KEY-Zq9xW")
        .doesNotContain("Pw-7Hq")
        .doesNotContain(keyBase64.substring(0, 20))
        .contains("\"kid\":\"k1\"");
    var read = store.find("acme", stored.id()).orElseThrow();
    assertThat(read.content().files()).isEqualTo(content.files());
    assertThat(new String(read.content().supportFiles().get("keys/deploy"), StandardCharsets.UTF_8))
        .isEqualTo(KEY_TEXT);
    // after a rotation the old key still opens it
    var rotated =
        new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k0 + "," + k1));
    assertThat(rotated.find("acme", stored.id()).orElseThrow().content().files())
        .isEqualTo(content.files());
  }

  @Test
  void aRowStoredInClearStaysReadableWithAKey() throws Exception {
    ConfigurationContent content = content("clear");
    var stored = new ConfigurationVersionStore(dataSource, clock).store("acme", content, "me");
    assertThat(rowText("acme", stored.id())).contains("Pw-7Hq").doesNotContain("\"kid\"");

    var read =
        new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k1))
            .find("acme", stored.id())
            .orElseThrow();

    assertThat(read.content().files()).isEqualTo(content.files());
  }

  @Test
  void aVersionSealedForAnotherTenantOrWithAMissingKeyDoesNotOpen() throws Exception {
    ConfigurationContent content = content("missing-key");
    var stored =
        new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k0))
            .store("acme", content, "me");

    assertThatThrownBy(
            () ->
                new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k1))
                    .find("acme", stored.id()))
        .isInstanceOf(ConfigurationVersionStore.SealedContentException.class)
        .hasMessageContaining(stored.id())
        .hasMessageContaining("'k0'");
    // over HTTP: a 409 problem naming the version and the key id, not a 500
    try {
      new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k1))
          .find("acme", stored.id());
    } catch (ConfigurationVersionStore.SealedContentException e) {
      var response =
          new dev.stagecraft.planner.service.adapter.http.SealedContentHandler().handle(null, e);
      assertThat(response.getStatus().getCode()).isEqualTo(409);
      assertThat(response.body()).contains("'k0'").contains(stored.id()).doesNotContain("FAKE");
    }
    // the associated data binds the tenant: a row moved to another tenant does not open
    try (Connection c = dataSource.getConnection();
        var ps =
            c.prepareStatement(
                "INSERT INTO planner.configuration_versions (tenant, id, files, support_files,"
                    + " size_bytes, created_at, created_by, sealed_content) SELECT 'intruder', id,"
                    + " files, support_files, size_bytes, created_at, created_by, sealed_content"
                    + " FROM planner.configuration_versions WHERE tenant = 'acme' AND id = ?")) {
      ps.setString(1, stored.id());
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    assertThatThrownBy(
            () ->
                new ConfigurationVersionStore(dataSource, clock, SecretsKeyring.parse(k0))
                    .find("intruder", stored.id()))
        .isInstanceOf(ConfigurationVersionStore.SealedContentException.class)
        .hasMessageContaining("does not authenticate");
  }
}
