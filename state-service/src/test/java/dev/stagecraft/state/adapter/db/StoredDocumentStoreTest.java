package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.DocumentDecider.Rejection;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushed documents stored once and referenced by their event (ADR 0022), against a real PostgreSQL:
 * the event stays small, the bytes come back as they were pushed, a later event folds onto the
 * parsed document, and the push rules hold as for an embedded document.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoredDocumentStoreTest {
  private static final String TENANT = "acme";
  private static final ObjectMapper JSON = new ObjectMapper();

  private StateTestDatabase database;
  private HikariDataSource dataSource;
  @TempDir Path uploads;

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("stored-documents");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  static Map<String, Object> realistic() throws IOException {
    try (InputStream in =
        StoredDocumentStoreTest.class.getResourceAsStream("/terraform/realistic-v4.tfstate")) {
      return JSON.readValue(in, new TypeReference<>() {});
    }
  }

  private StateStore newStore() {
    return new StateStore(dataSource, Clock.systemUTC());
  }

  private DocumentDecider.Outcome push(
      StateStore store, String workspace, byte[] body, boolean force) throws Exception {
    try (SpooledDocument upload =
        SpooledDocument.receive(new ByteArrayInputStream(body), null, Long.MAX_VALUE, uploads)) {
      return store.pushDocument(TENANT, workspace, 0, "user:test", upload, force);
    }
  }

  private byte[] pull(StateStore store, String workspace) throws Exception {
    StateStore.CurrentDocument current = store.currentDocument(TENANT, workspace);
    assertThat(current.stored()).as("the state is still the pushed document").isNotNull();
    try (InputStream in = store.openDocument(TENANT, workspace, current.stored())) {
      return in.readAllBytes();
    }
  }

  private long count(String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aPushStoresTheBytesOnceBehindASmallEventAndAPullSendsThemBack() throws Exception {
    StateStore store = newStore();
    // pretty-printed, so a re-rendering would differ from the bytes pushed
    byte[] pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(realistic());
    byte[] body = java.util.Arrays.copyOf(pretty, pretty.length + DocumentSlices.PAD);
    java.util.Arrays.fill(body, pretty.length, body.length, (byte) ' ');

    DocumentDecider.Outcome outcome = push(store, "once", body, false);

    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.serial()).isEqualTo(17);
    assertThat(
            count(
                "SELECT max(length(payload::text)) FROM state.state_events"
                    + " WHERE tenant = 'acme' AND workspace = 'once'"))
        .as("the event references the document instead of embedding it")
        .isLessThan(400);
    assertThat(
            count(
                "SELECT count(*) FROM state.state_documents WHERE tenant = 'acme'"
                    + " AND workspace = 'once'"))
        .isEqualTo(1);
    assertThat(pull(store, "once")).isEqualTo(body);
    assertThat(pull(newStore(), "once")).as("also without the cache").isEqualTo(body);
    assertThat(store.currentDocument(TENANT, "once").stored().md5())
        .isEqualTo(
            java.util.Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("MD5").digest(body)));

    WorkspaceState parsed = newStore().currentState(TENANT, "once");
    assertThat(
            DocumentDecider.sameJson(
                TerraformStateV4.render(parsed, parsed.lineage()), JSON.readValue(body, Map.class)))
        .as("the folded state is the document's")
        .isTrue();
    assertThat(store.versions(TENANT, "once"))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.serial()).isEqualTo(17);
              assertThat(v.type()).isEqualTo("state_pushed");
              assertThat(v.digest())
                  .isEqualTo(
                      HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
            });
    assertThat(store.version(TENANT, "once", 17).orElseThrow()).isEqualTo(parsed);
  }

  @Test
  void aRetriedPushWritesNothingAndAnOlderSerialIsRefusedUnlessForced() throws Exception {
    StateStore store = newStore();
    byte[] body = JSON.writeValueAsBytes(realistic());
    push(store, "rules", body, false);

    DocumentDecider.Outcome retried = push(newStore(), "rules", body, false);
    assertThat(retried.accepted()).isTrue();
    assertThat(retried.events()).isEmpty();
    assertThat(store.history(TENANT, "rules")).hasSize(1);

    Map<String, Object> older = realistic();
    older.put("serial", 3);
    DocumentDecider.Outcome refused = push(store, "rules", JSON.writeValueAsBytes(older), false);
    assertThat(refused.rejection()).isEqualTo(Rejection.SERIAL_BACKWARDS);
    assertThat(
            count(
                "SELECT count(*) FROM state.state_documents WHERE tenant = 'acme'"
                    + " AND workspace = 'rules'"))
        .as("nothing stored")
        .isEqualTo(1);

    DocumentDecider.Outcome forced = push(store, "rules", JSON.writeValueAsBytes(older), true);
    assertThat(forced.accepted()).isTrue();
    assertThat(forced.serial()).isEqualTo(18);
    Map<String, Object> pulled = JSON.readValue(pull(newStore(), "rules"), Map.class);
    older.put("serial", 18);
    assertThat(DocumentDecider.sameJson(pulled, older)).isTrue();
  }

  @Test
  void anEventAfterAPushFoldsOntoTheParsedDocument() throws Exception {
    StateStore store = newStore();
    push(store, "after", JSON.writeValueAsBytes(realistic()), false);

    var decision =
        Histories.changes(newStore())
            .changeTaint(TENANT, "after", "aws_instance.web[0]", true, 0, "user:test");

    assertThat(decision.accepted()).isTrue();
    assertThat(store.currentDocument(TENANT, "after").stored())
        .as("no longer exactly the pushed document")
        .isNull();
    WorkspaceState state = newStore().currentState(TENANT, "after");
    assertThat(state.serial()).isEqualTo(18);
    assertThat(state.instances().get("aws_instance.web[0]").tainted()).isTrue();
    assertThat(state.instances())
        .hasSize(newStore().version(TENANT, "after", 17).orElseThrow().instances().size());
  }

  @Test
  void aRunOpeningAfterAPushLeavesThePushedBytesTheStateWithoutLoadingThem() throws Exception {
    StateStore store = newStore();
    byte[] pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(realistic());
    push(store, "opened", pretty, false);
    // a run opening and an explicit advance each append fencing_advanced (ADR 0052); neither
    // changes the state, so the pushed document stays what a pull sends, byte for byte
    assertThat(store.openRun(TENANT, "opened", 3, "run-3", "hash").newerToken()).isEmpty();
    assertThat(store.advanceFencing(TENANT, "opened", 4)).isEmpty();
    assertThat(store.history(TENANT, "opened"))
        .extracting(StateStore.StoredEvent::type)
        .containsExactly("state_pushed", "fencing_advanced", "fencing_advanced");
    assertThat(pull(newStore(), "opened")).isEqualTo(pretty);
    assertThat(newStore().currentState(TENANT, "opened").serial()).isEqualTo(17);
  }

  @Test
  void aPushUnderANewerFencingTokenAdvancesTheNewestAndAnOlderTokenIsRefused() throws Exception {
    StateStore store = newStore();
    Map<String, Object> doc = realistic();
    try (SpooledDocument upload = spool(JSON.writeValueAsBytes(doc))) {
      assertThat(store.pushDocument(TENANT, "fenced", 7, "user:test", upload, false).accepted())
          .isTrue();
    }
    assertThat(store.newestFencingToken(TENANT, "fenced")).isEqualTo(7);

    doc.put("serial", 18);
    try (SpooledDocument upload = spool(JSON.writeValueAsBytes(doc))) {
      DocumentDecider.Outcome stale =
          store.pushDocument(TENANT, "fenced", 6, "user:test", upload, false);
      assertThat(stale.rejection()).isEqualTo(Rejection.STALE_FENCING_TOKEN);
    }
    assertThat(store.history(TENANT, "fenced")).as("nothing written").hasSize(1);
    assertThat(
            count(
                "SELECT count(*) FROM state.state_documents WHERE tenant = 'acme'"
                    + " AND workspace = 'fenced'"))
        .isEqualTo(1);

    try (SpooledDocument upload = spool(JSON.writeValueAsBytes(doc))) {
      assertThat(store.pushDocument(TENANT, "fenced", 7, "user:test", upload, false).serial())
          .isEqualTo(18);
    }
    assertThat(store.newestFencingToken(TENANT, "fenced")).isEqualTo(7);
    assertThat(store.versions(TENANT, "fenced"))
        .extracting(StateStore.Version::serial)
        .containsExactly(17L, 18L);
  }

  @Test
  void slicesHandTheStoredBytesOverWholeAndInOrder() throws Exception {
    StateStore store = newStore();
    byte[] pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(realistic());
    byte[] body = java.util.Arrays.copyOf(pretty, pretty.length + DocumentSlices.PAD);
    java.util.Arrays.fill(body, pretty.length, body.length, (byte) ' ');
    push(store, "sliced", body, false);

    java.io.ByteArrayOutputStream read = new java.io.ByteArrayOutputStream();
    int slices = 0;
    try (StateStore.DocumentSlices in =
        store.openDocumentSlices(
            TENANT, "sliced", store.currentDocument(TENANT, "sliced").stored())) {
      for (byte[] slice; (slice = in.nextSlice()) != null; slices++) {
        assertThat(slice.length).isLessThanOrEqualTo(2 * StateStore.DOCUMENT_SLICE);
        read.write(slice);
      }
      assertThat(in.nextSlice()).as("stays at the end").isNull();
    }
    assertThat(read.toByteArray()).isEqualTo(body);
    // 16 MiB + a little: three 4 MiB slices, then the short rest with the slice before it
    assertThat(slices).as("a short rest comes with the slice before it").isEqualTo(4);
  }

  private SpooledDocument spool(byte[] body) throws IOException {
    return SpooledDocument.receive(new ByteArrayInputStream(body), null, Long.MAX_VALUE, uploads);
  }

  @Test
  void storedDocumentsAreAppendOnly() throws Exception {
    push(newStore(), "frozen", JSON.writeValueAsBytes(realistic()), false);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.executeUpdate("UPDATE state.state_documents SET md5 = 'x'"))
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM state.state_documents"))
          .hasMessageContaining("append-only");
    }
  }

  /**
   * A document larger than what is read whole ({@link StateStore#WHOLE_DOCUMENT}), so a pull reads
   * several slices.
   */
  private static final class DocumentSlices {
    static final int PAD = (int) StateStore.WHOLE_DOCUMENT + 17;
  }
}
