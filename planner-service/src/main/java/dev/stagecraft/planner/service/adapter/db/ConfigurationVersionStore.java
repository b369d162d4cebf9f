package dev.stagecraft.planner.service.adapter.db;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.servicekit.http.Json;
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

  public ConfigurationVersionStore(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /**
   * Stores the content under its id unless the tenant has it already.
   *
   * @return the stored version (the earlier one when it existed)
   */
  public StoredVersion store(String tenant, ConfigurationContent content, String createdBy)
      throws SQLException {
    String id = content.id();
    try (Connection c = dataSource.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO planner.configuration_versions (tenant, id, files, support_files,"
              + " size_bytes, created_at, created_by) VALUES (?, ?, ?::jsonb, ?::jsonb, ?, ?, ?)"
              + " ON CONFLICT DO NOTHING",
          tenant,
          id,
          Json.write(new TreeMap<>(content.files())),
          Json.write(content.supportFilesBase64()),
          content.sizeBytes(),
          clock.instant(),
          createdBy);
    }
    return find(tenant, id).orElseThrow();
  }

  public Optional<StoredVersion> find(String tenant, String id) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            Sql.prepare(
                c,
                "SELECT files::text, support_files::text, size_bytes, created_at, created_by"
                    + " FROM planner.configuration_versions WHERE tenant = ? AND id = ?",
                tenant,
                id);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      Map<String, String> files = new TreeMap<>();
      JsonNode f = Json.object(rs.getString(1));
      f.fields().forEachRemaining(e -> files.put(e.getKey(), e.getValue().asText()));
      Map<String, byte[]> support = new TreeMap<>();
      JsonNode s = Json.object(rs.getString(2));
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
}
