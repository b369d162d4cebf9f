package dev.stagecraft.state.adapter.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/** Row counts the document push tests compare before and after a push. */
final class StoredRows {
  private StoredRows() {}

  /** The single number {@code sql} answers. */
  static long count(DataSource dataSource, String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Rows of the workspace in the content, document, event and version tables, in that order. */
  static List<Long> ofWorkspace(DataSource dataSource, String tenant, String workspace)
      throws SQLException {
    String where = " WHERE tenant = '" + tenant + "' AND workspace = '" + workspace + "'";
    return List.of(
        count(dataSource, "SELECT count(*) FROM state.document_contents" + where),
        count(dataSource, "SELECT count(*) FROM state.state_documents" + where),
        count(dataSource, "SELECT count(*) FROM state.state_events" + where),
        count(dataSource, "SELECT count(*) FROM state.state_versions" + where));
  }
}
