package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.config.ConfigurationContent;
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
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Configuration versions ({@code planner.configuration_versions}): immutable, content-addressed,
 * per tenant. Storing the same files twice keeps the first row. Thread-safe.
 *
 * <p>Sealed at rest (docs/adr/0024): with a secrets keyring that can seal, the files (which may
 * include an SSH private key read by {@code key_file}) are stored as one AES-256-GCM box bound to
 * the tenant and the version id ({@code sealed_content}); the id stays the digest of the clear
 * content. Rows stored in clear (before, or without a keyring) are read as they are.
 */
public final class ConfigurationVersionStore {
  /** A stored configuration version. */
  public record StoredVersion(
      String tenant,
      String id,
      ConfigurationContent content,
      long sizeBytes,
      Instant createdAt,
      String createdBy) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final SecretsKeyring keyring;

  /** Without a keyring: content is stored in clear. */
  public ConfigurationVersionStore(DataSource dataSource, Clock clock) {
    this(dataSource, clock, SecretsKeyring.none());
  }

  /** Seals the content of new versions when {@code keyring} can seal. */
  public ConfigurationVersionStore(DataSource dataSource, Clock clock, SecretsKeyring keyring) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.keyring = keyring;
  }

  /**
   * A stored version cannot be opened: the key that sealed it is not in this planner's keyring, or
   * the row was tampered with. The message names the version and the key id.
   */
  public static final class SealedContentException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    SealedContentException(String message) {
      super(message);
    }
  }

  /**
   * Stores the content under its id unless the tenant has it already.
   *
   * @return the stored version (the earlier one when it existed)
   */
  public StoredVersion store(String tenant, ConfigurationContent content, String createdBy)
      throws SQLException {
    return find(tenant, keep(tenant, content, createdBy)).orElseThrow();
  }

  /**
   * Stores the content under its id unless the tenant has it already, without reading it back (for
   * a run's recorded request, docs/adr/0029).
   *
   * @return the version's id
   */
  public String keep(String tenant, ConfigurationContent content, String createdBy)
      throws SQLException {
    String id = content.id();
    String files = Json.write(new TreeMap<>(content.files()));
    String supportFiles = Json.write(content.supportFilesBase64());
    String sealed = null;
    if (keyring.canSeal()) {
      String both = "{\"files\":" + files + ",\"support_files\":" + supportFiles + "}";
      sealed =
          Json.write(
              keyring.seal(both.getBytes(StandardCharsets.UTF_8), associatedData(tenant, id)));
      files = "{}";
      supportFiles = "{}";
    }
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.configuration_versions (tenant, id, files, support_files,"
              + " size_bytes, created_at, created_by, sealed_content)"
              + " VALUES (?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
          tenant,
          id,
          files,
          supportFiles,
          content.sizeBytes(),
          clock.instant(),
          createdBy,
          sealed);
    }
    return id;
  }

  /**
   * The stored version, opened when it was sealed.
   *
   * @throws SealedContentException when it is sealed with a key this planner does not have
   */
  public Optional<StoredVersion> find(String tenant, String id) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT files::text, support_files::text, size_bytes, created_at, created_by,"
                    + " sealed_content FROM planner.configuration_versions"
                    + " WHERE tenant = ? AND id = ?",
                tenant,
                id);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      Map<String, String> files = new TreeMap<>();
      JsonNode f = Json.object(rs.getString(1));
      JsonNode s = Json.object(rs.getString(2));
      String sealed = rs.getString(6);
      if (sealed != null) {
        JsonNode box = Json.object(sealed);
        JsonNode both =
            open(
                tenant,
                id,
                new SealedBox(
                    box.path("alg").asText(),
                    box.path("kid").asText(),
                    box.path("nonce").asText(),
                    box.path("ciphertext").asText()));
        f = both.path("files");
        s = both.path("support_files");
      }
      f.fields().forEachRemaining(e -> files.put(e.getKey(), e.getValue().asText()));
      Map<String, byte[]> support = new TreeMap<>();
      s.fields()
          .forEachRemaining(
              e -> support.put(e.getKey(), Base64.getDecoder().decode(e.getValue().asText())));
      return Optional.of(
          new StoredVersion(
              tenant,
              id,
              new ConfigurationContent(files, support),
              rs.getLong(3),
              rs.getTimestamp(4).toInstant(),
              rs.getString(5)));
    }
  }

  private JsonNode open(String tenant, String id, SealedBox box) {
    try {
      return Json.object(
          new String(keyring.open(box, associatedData(tenant, id)), StandardCharsets.UTF_8));
    } catch (UnsealException e) {
      throw new SealedContentException(
          "Configuration version "
              + id
              + " is sealed at rest and cannot be opened: "
              + e.getMessage());
    }
  }

  private static byte[] associatedData(String tenant, String id) {
    return SecretsKeyring.associatedData("dev.stagecraft.configuration-version/v1", tenant, id);
  }
}
