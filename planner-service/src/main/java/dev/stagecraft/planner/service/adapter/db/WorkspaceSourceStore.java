package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.GitSourceRules;
import dev.stagecraft.planner.service.source.RepositoryUrls;
import dev.stagecraft.planner.service.source.WorkspaceSources;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.servicekit.http.Json;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Each workspace's git source ({@code planner.workspace_sources}, docs/workspaces.md). The
 * credentials are stored only sealed with the secrets keyring, bound to tenant and workspace
 * (associated data {@code dev.stagecraft.git-credentials/v1}); a source with credentials is refused
 * when the keyring cannot seal. {@link #view} never opens them; {@link #gitSourceOf} does, in
 * memory only. Thread-safe (every call uses its own connection).
 */
public final class WorkspaceSourceStore implements WorkspaceSources {
  /**
   * A workspace's source as the API shows it: never the secret.
   *
   * @param credentials {@code none}, {@code https-token} or {@code ssh-key}
   */
  public record SourceView(
      String url,
      String ref,
      String directory,
      String credentials,
      boolean triggerOnAnyPath,
      Instant updatedAt,
      String updatedBy) {}

  /** The source cannot be stored: credentials without a keyring that can seal them. */
  public static final class CannotSeal extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    CannotSeal(String message) {
      super(message);
    }
  }

  private final DataSource dataSource;
  private final Clock clock;
  private final SecretsKeyring keyring;

  public WorkspaceSourceStore(DataSource dataSource, Clock clock, SecretsKeyring keyring) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.keyring = keyring;
  }

  /**
   * Sets the workspace's git source (its ref stored as the full ref, its directory without a
   * trailing {@code /}), replacing any it had.
   *
   * @throws CannotSeal when the source has credentials and the keyring cannot seal
   */
  public void put(String tenant, String workspace, GitSource source, String updatedBy)
      throws SQLException {
    String kind = kindOf(source.credentials());
    String sealed = null;
    if (!(source.credentials() instanceof GitCredentials.None)) {
      if (!keyring.canSeal()) {
        throw new CannotSeal(
            "The planner has no secrets keyring (STAGECRAFT_SECRETS_KEYS), so it cannot store"
                + " credentials sealed; it never stores them in clear. Configure a keyring, or"
                + " use a public repository.");
      }
      sealed =
          Json.write(
              keyring.seal(
                  Json.write(secretOf(source.credentials())).getBytes(StandardCharsets.UTF_8),
                  associatedData(tenant, workspace)));
    }
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.workspace_sources (tenant, workspace, url, url_key, ref,"
              + " directory, credentials, sealed_secret, trigger_on_any_path, updated_at,"
              + " updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::boolean, ?, ?)"
              + " ON CONFLICT (tenant, workspace) DO UPDATE SET url = EXCLUDED.url,"
              + " url_key = EXCLUDED.url_key, ref = EXCLUDED.ref, directory = EXCLUDED.directory,"
              + " credentials = EXCLUDED.credentials, sealed_secret = EXCLUDED.sealed_secret,"
              + " trigger_on_any_path = EXCLUDED.trigger_on_any_path,"
              + " updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by",
          tenant,
          workspace,
          source.url(),
          RepositoryUrls.key(source.url()),
          GitSourceRules.fullRef(source.ref()),
          GitSourceRules.normalDirectory(source.directory()),
          kind,
          sealed,
          Boolean.toString(source.triggerOnAnyPath()),
          clock.instant(),
          updatedBy);
    }
  }

  /**
   * Removes the workspace's git source: its runs use uploaded configurations again.
   *
   * @return false when it had none
   */
  public boolean remove(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return Sql.update(
              c,
              "DELETE FROM planner.workspace_sources WHERE tenant = ? AND workspace = ?",
              tenant,
              workspace)
          == 1;
    }
  }

  /** The workspace's git source without its secret; empty when it has none. */
  public Optional<SourceView> view(String tenant, String workspace) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT url, ref, directory, credentials, trigger_on_any_path, updated_at,"
                    + " updated_by FROM planner.workspace_sources"
                    + " WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new SourceView(
              rs.getString(1),
              rs.getString(2),
              rs.getString(3),
              rs.getString(4),
              rs.getBoolean(5),
              rs.getTimestamp(6).toInstant(),
              rs.getString(7)));
    }
  }

  @Override
  public Optional<GitSource> gitSourceOf(String tenant, String workspace) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT url, ref, directory, credentials, sealed_secret, trigger_on_any_path"
                    + " FROM planner.workspace_sources WHERE tenant = ? AND workspace = ?",
                tenant,
                workspace);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      GitCredentials credentials =
          credentialsOf(tenant, workspace, rs.getString(4), rs.getString(5));
      return Optional.of(
          new GitSource(
              rs.getString(1), rs.getString(2), rs.getString(3), credentials, rs.getBoolean(6)));
    } catch (SQLException e) {
      throw new IllegalStateException(
          "the source of workspace " + workspace + " could not be read: " + e.getMessage(), e);
    }
  }

  @Override
  public List<String> following(String tenant, List<String> repositoryUrls, String branch) {
    Set<String> keys = new LinkedHashSet<>();
    for (String url : repositoryUrls) {
      if (url != null && !url.isBlank()) {
        keys.add(RepositoryUrls.key(url));
      }
    }
    if (keys.isEmpty() || branch == null || branch.isBlank()) {
      return List.of();
    }
    List<Object> params = new ArrayList<>();
    params.add(tenant);
    params.add(GitSourceRules.branchRef(branch));
    params.addAll(keys);
    String in = String.join(", ", keys.stream().map(k -> "?").toList());
    List<String> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT workspace FROM planner.workspace_sources WHERE tenant = ? AND ref = ?"
                    + " AND url_key IN ("
                    + in
                    + ") ORDER BY workspace",
                params.toArray());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "the workspaces following a repository could not be read: " + e.getMessage(), e);
    }
    return out;
  }

  /** {@code none}, {@code https-token} or {@code ssh-key}. */
  public static String kindOf(GitCredentials credentials) {
    return switch (credentials) {
      case GitCredentials.None n -> "none";
      case GitCredentials.HttpsToken t -> "https-token";
      case GitCredentials.SshKey k -> "ssh-key";
    };
  }

  private static Map<String, String> secretOf(GitCredentials credentials) {
    Map<String, String> out = new LinkedHashMap<>();
    switch (credentials) {
      case GitCredentials.HttpsToken t -> {
        out.put("username", t.username());
        out.put("token", t.token());
      }
      case GitCredentials.SshKey k -> out.put("sshKey", k.privateKey());
      case GitCredentials.None n -> {}
    }
    return out;
  }

  private GitCredentials credentialsOf(
      String tenant, String workspace, String kind, String sealed) {
    if ("none".equals(kind) || sealed == null) {
      return new GitCredentials.None();
    }
    JsonNode box = Json.object(sealed);
    JsonNode secret;
    try {
      secret =
          Json.object(
              new String(
                  keyring.open(
                      new SealedBox(
                          box.path("alg").asText(),
                          box.path("kid").asText(),
                          box.path("nonce").asText(),
                          box.path("ciphertext").asText()),
                      associatedData(tenant, workspace)),
                  StandardCharsets.UTF_8));
    } catch (UnsealException e) {
      throw new IllegalStateException(
          "the credentials of workspace "
              + workspace
              + "'s source cannot be opened: "
              + e.getMessage()
              + "; set the source again with its credentials",
          e);
    }
    return "ssh-key".equals(kind)
        ? new GitCredentials.SshKey(secret.path("sshKey").asText())
        : new GitCredentials.HttpsToken(
            secret.path("username").isNull() ? null : secret.path("username").asText(null),
            secret.path("token").asText());
  }

  private static byte[] associatedData(String tenant, String workspace) {
    return SecretsKeyring.associatedData("dev.stagecraft.git-credentials/v1", tenant, workspace);
  }
}
