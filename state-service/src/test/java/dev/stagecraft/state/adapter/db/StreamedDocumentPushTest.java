package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.DocumentDecider.Rejection;
import dev.stagecraft.state.history.StoredDocument;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushes received, validated and compressed as they arrive (ADR 0031, ADR 0041), against a real
 * PostgreSQL, through the same {@link StateStore#pushStreamed} and {@link
 * SpooledDocument#receiveStreamed} the push endpoints use when the body has a {@code
 * Content-Length}: a good push reads back byte for byte (a large one in slices); a body broken near
 * its end, a wrong MD5, a serial going backwards or a lost lock store nothing (no content row, no
 * document row, no event, the newest version unchanged); a spooled (chunked) push and a streamed
 * one live side by side; content rows written before ADR 0041 still read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamedDocumentPushTest {
  private static final String TENANT = "acme";
  private static final ObjectMapper JSON = new ObjectMapper();

  private StateTestDatabase database;
  private HikariDataSource dataSource;
  @TempDir Path uploads;

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("streamed-documents");
    dataSource = database.dataSource();
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  private static Map<String, Object> realistic(long serial) throws IOException {
    try (InputStream in =
        StreamedDocumentPushTest.class.getResourceAsStream("/terraform/realistic-v4.tfstate")) {
      Map<String, Object> doc = JSON.readValue(in, new TypeReference<>() {});
      doc.put("serial", serial);
      return doc;
    }
  }

  /**
   * A pretty-printed document after whitespace that makes it well over two read slices (but at most
   * {@link StateStore#WHOLE_DOCUMENT}); its closing brace is the last byte.
   */
  private static byte[] large(long serial) throws IOException {
    byte[] pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(realistic(serial));
    int pad = 2 * StateStore.DOCUMENT_SLICE + 4097;
    byte[] body = new byte[pad + pretty.length];
    Arrays.fill(body, 0, pad, (byte) ' ');
    System.arraycopy(pretty, 0, body, pad, pretty.length);
    return body;
  }

  /**
   * A valid document over {@link StateStore#WHOLE_DOCUMENT} (so read in slices) that compresses
   * poorly: an output of random base64, so that its compressed bytes, too, span several slices.
   */
  private static byte[] larger(long serial) throws IOException {
    Map<String, Object> doc = realistic(serial);
    byte[] noise = new byte[(int) StateStore.WHOLE_DOCUMENT * 3 / 4 + 4096];
    new java.util.Random(serial).nextBytes(noise);
    @SuppressWarnings("unchecked")
    Map<String, Object> outputs = (Map<String, Object>) doc.get("outputs");
    outputs.put(
        "noise", Map.of("value", Base64.getEncoder().encodeToString(noise), "type", "string"));
    byte[] body = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc);
    assertThat((long) body.length).isGreaterThan(StateStore.WHOLE_DOCUMENT);
    return body;
  }

  private StateStore newStore() {
    return new StateStore(dataSource, Clock.systemUTC());
  }

  private DocumentDecider.Outcome pushStreamed(
      StateStore store, String workspace, byte[] body, String md5, long token) throws Exception {
    return store.pushStreamed(
        TENANT,
        workspace,
        body.length,
        "user:test",
        content ->
            SpooledDocument.receiveStreamed(
                new ByteArrayInputStream(body), md5, body.length, content),
        () -> token);
  }

  private static String md5(byte[] body) throws Exception {
    return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
  }

  private byte[] pull(StateStore store, String workspace) throws Exception {
    StateStore.CurrentDocument current = store.currentDocument(TENANT, workspace);
    assertThat(current.stored()).as("the state is still the pushed document").isNotNull();
    try (InputStream in = store.openDocument(TENANT, workspace, current.stored())) {
      return in.readAllBytes();
    }
  }

  /** Every slice {@code content} hands out, in order (null for none). */
  private static List<byte[]> slices(StateStore.DocumentSlices content) throws Exception {
    if (content == null) {
      return null;
    }
    List<byte[]> out = new java.util.ArrayList<>();
    try (content) {
      for (byte[] slice = content.nextSlice(); slice != null; slice = content.nextSlice()) {
        out.add(slice);
      }
    }
    return out;
  }

  private static byte[] concat(List<byte[]> slices) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] slice : slices) {
      out.write(slice);
    }
    return out.toByteArray();
  }

  /** The bytes {@code content} hands out (null for none). */
  private static byte[] bytes(StateStore.DocumentSlices content) throws Exception {
    List<byte[]> slices = slices(content);
    return slices == null ? null : concat(slices);
  }

  private long count(String sql) throws Exception {
    return StoredRows.count(dataSource, sql);
  }

  /** Rows of the workspace in the content, document, event and version tables. */
  private List<Long> rows(String workspace) throws Exception {
    return StoredRows.ofWorkspace(dataSource, TENANT, workspace);
  }

  @Test
  void aLargeDocumentIsStoredCompressedByTheServiceAndReadsBackInSlicesByteForByte()
      throws Exception {
    StateStore store = newStore();
    byte[] body = larger(5);

    DocumentDecider.Outcome outcome = pushStreamed(store, "large", body, md5(body), 0);

    assertThat(outcome.accepted()).isTrue();
    assertThat(
            count(
                "SELECT count(*) FROM state.state_documents d JOIN state.document_contents c"
                    + " USING (tenant, workspace, content_id) WHERE d.tenant = 'acme'"
                    + " AND d.workspace = 'large' AND c.content IS NULL AND c.packed IS NULL"
                    + " AND length(c.zstd) BETWEEN "
                    + (2L * StateStore.DOCUMENT_SLICE + 1)
                    + " AND "
                    + (body.length - 1)
                    + " AND pg_column_compression(c.zstd) IS NULL"))
        .as(
            "compressed by the service (smaller than the body, yet over two compressed slices),"
                + " not compressed again by PostgreSQL")
        .isEqualTo(1);
    assertThat(pull(store, "large")).isEqualTo(body);
    StoredDocument stored = newStore().currentDocument(TENANT, "large").stored();
    List<byte[]> slices = slices(newStore().openDocumentSlices(TENANT, "large", stored));
    assertThat(concat(slices)).as("also without the cache").isEqualTo(body);
    assertThat(slices)
        .as("decompressed as it is handed out, one slice at a time: never held whole")
        .hasSizeGreaterThan(3)
        .allSatisfy(
            slice -> assertThat(slice.length).isLessThanOrEqualTo(StateStore.DECOMPRESSED_SLICE));
  }

  @Test
  void contentRowsWrittenBeforeTheServiceCompressedThemStillRead() throws Exception {
    byte[] small = large(17);
    byte[] big = larger(19);
    StateStore store = newStore();
    pushStreamed(store, "legacy-packed", small, null, 0);
    pushStreamed(store, "legacy-content", big, null, 0);
    // as V10 and V11 wrote them: compressed by PostgreSQL up to 16 MiB, else uncompressed
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SET LOCAL session_replication_role = replica"); // past the append-only trigger
      }
      for (var form :
          List.of(Map.entry("legacy-packed", small), Map.entry("legacy-content", big))) {
        String column = form.getKey().equals("legacy-packed") ? "packed" : "content";
        try (var ps =
            c.prepareStatement(
                "UPDATE state.document_contents SET zstd = NULL, "
                    + column
                    + " = ? WHERE tenant = 'acme' AND workspace = ?")) {
          ps.setBytes(1, form.getValue());
          ps.setString(2, form.getKey());
          assertThat(ps.executeUpdate()).isEqualTo(1);
        }
      }
      c.commit();
    }
    assertThat(
            count(
                "SELECT count(*) FROM state.document_contents WHERE tenant = 'acme'"
                    + " AND ((workspace = 'legacy-packed' AND packed IS NOT NULL)"
                    + " OR (workspace = 'legacy-content' AND content IS NOT NULL)) AND zstd IS NULL"))
        .isEqualTo(2);

    assertThat(bytes(store.currentDocumentForPull(TENANT, "legacy-packed").content()))
        .as("whole, with the head")
        .isEqualTo(small);
    assertThat(pull(newStore(), "legacy-packed")).isEqualTo(small);
    assertThat(pull(newStore(), "legacy-content")).as("in slices").isEqualTo(big);
    assertThat(newStore().currentState(TENANT, "legacy-content").serial()).isEqualTo(19);
  }

  @Test
  void storedBytesThatDoNotDecompressToTheDocumentsSizeAreNotSent() throws Exception {
    byte[] body = JSON.writeValueAsBytes(realistic(3));
    StateStore store = newStore();
    pushStreamed(store, "longer", body, null, 0);
    pushStreamed(store, "shorter", body, null, 0);
    byte[] longer = Arrays.copyOf(body, body.length + 1);
    longer[body.length] = ' ';
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SET LOCAL session_replication_role = replica");
      }
      for (var content :
          List.of(
              Map.entry("longer", longer),
              Map.entry("shorter", Arrays.copyOf(body, body.length - 1)))) {
        try (var ps =
            c.prepareStatement(
                "UPDATE state.document_contents SET zstd = ? WHERE tenant = 'acme'"
                    + " AND workspace = ?")) {
          ps.setBytes(1, compressed(content.getValue()));
          ps.setString(2, content.getKey());
          assertThat(ps.executeUpdate()).isEqualTo(1);
        }
      }
      c.commit();
    }

    assertThatThrownBy(() -> pull(newStore(), "longer"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than its size");
    assertThatThrownBy(() -> bytes(store.currentDocumentForPull(TENANT, "longer").content()))
        .as("held with the head")
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than its size");
    assertThatThrownBy(() -> pull(newStore(), "shorter"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("truncated");
  }

  private static byte[] compressed(byte[] bytes) throws IOException {
    try (var spool = new dev.stagecraft.state.adapter.document.CompressedSpool(null, 1 << 20)) {
      spool.output().write(bytes);
      spool.finish();
      try (InputStream in = spool.open()) {
        return in.readAllBytes();
      }
    }
  }

  @Test
  void aContentRowHoldsItsBytesInExactlyOneForm() throws Exception {
    pushStreamed(newStore(), "one-form", JSON.writeValueAsBytes(realistic(3)), null, 0);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SET LOCAL session_replication_role = replica");
        assertThatThrownBy(
                () ->
                    s.executeUpdate(
                        "UPDATE state.document_contents SET packed = zstd"
                            + " WHERE workspace = 'one-form'"))
            .hasMessageContaining("document_contents_one_form");
      } finally {
        c.rollback();
      }
    }
  }

  @Test
  void aStreamedPushStoresTheBytesWhileTheyArriveAndReadsBackByteForByte() throws Exception {
    StateStore store = newStore();
    byte[] body = large(17);

    DocumentDecider.Outcome outcome = pushStreamed(store, "streamed", body, md5(body), 0);

    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.serial()).isEqualTo(17);
    assertThat(rows("streamed"))
        .as("content, document, event, version")
        .containsExactly(1L, 1L, 1L, 1L);
    assertThat(
            count(
                "SELECT count(*) FROM state.state_documents d JOIN state.document_contents c"
                    + " USING (tenant, workspace, content_id) WHERE d.tenant = 'acme'"
                    + " AND d.workspace = 'streamed' AND d.content IS NULL"
                    + " AND c.content IS NULL AND c.packed IS NULL AND length(c.zstd) < "
                    + body.length / 10
                    + " AND pg_column_compression(c.zstd) IS NULL"))
        .as(
            "the document row names the content written while it was received, compressed by"
                + " the service (ADR 0041)")
        .isEqualTo(1);
    assertThat(pull(store, "streamed")).isEqualTo(body);
    assertThat(pull(newStore(), "streamed")).as("also without the cache").isEqualTo(body);
    StoredDocument stored = newStore().currentDocument(TENANT, "streamed").stored();
    assertThat(stored.md5()).isEqualTo(md5(body));
    assertThat(stored.digest())
        .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
    assertThat(newStore().currentState(TENANT, "streamed").serial())
        .as("the stored bytes parse into the state")
        .isEqualTo(17);
  }

  @Test
  void theSameBytesPushedAgainAreStoredOnceAndChangeNothing() throws Exception {
    StateStore store = newStore();
    byte[] body = JSON.writeValueAsBytes(realistic(17));
    assertThat(pushStreamed(store, "again", body, null, 0).accepted()).isTrue();

    DocumentDecider.Outcome retried = pushStreamed(newStore(), "again", body, null, 0);

    assertThat(retried.accepted()).isTrue();
    assertThat(retried.events()).isEmpty();
    assertThat(rows("again")).containsExactly(1L, 1L, 1L, 1L);
  }

  @Test
  void aBodyBrokenNearItsEndStoresNothing() throws Exception {
    StateStore store = newStore();
    byte[] first = large(17);
    pushStreamed(store, "broken", first, null, 0);
    List<Long> before = rows("broken");
    byte[] broken = large(18);
    assertThat(broken[broken.length - 1]).isEqualTo((byte) '}');
    broken[broken.length - 1] = ']'; // the document's closing brace, its last byte

    assertThatThrownBy(() -> pushStreamed(store, "broken", broken, null, 0))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(400);
              assertThat(p.getMessage()).contains("not valid JSON");
            });

    assertNothingStored("broken", before, first, 17);
  }

  @Test
  void aWrongContentMd5StoresNothing() throws Exception {
    StateStore store = newStore();
    byte[] first = large(17);
    pushStreamed(store, "md5", first, null, 0);
    List<Long> before = rows("md5");
    byte[] next = large(18);

    assertThatThrownBy(() -> pushStreamed(store, "md5", next, md5(first), 0))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(400);
              assertThat(p.getMessage()).contains("does not match the body received");
            });

    assertNothingStored("md5", before, first, 17);
  }

  @Test
  void aSerialGoingBackwardsStoresNothing() throws Exception {
    StateStore store = newStore();
    byte[] first = large(17);
    pushStreamed(store, "backwards", first, null, 0);
    List<Long> before = rows("backwards");
    byte[] older = large(16);

    DocumentDecider.Outcome outcome = pushStreamed(store, "backwards", older, md5(older), 0);

    assertThat(outcome.rejection()).isEqualTo(Rejection.SERIAL_BACKWARDS);
    assertNothingStored("backwards", before, first, 17);
  }

  @Test
  void aLostLockOrAStaleTokenStoresNothing() throws Exception {
    StateStore store = newStore();
    byte[] first = large(17);
    assertThat(pushStreamed(store, "fenced", first, null, 7).accepted()).isTrue();
    assertThat(store.newestFencingToken(TENANT, "fenced")).isEqualTo(7);
    List<Long> before = rows("fenced");
    byte[] next = large(18);

    assertThatThrownBy(
            () ->
                store.pushStreamed(
                    TENANT,
                    "fenced",
                    next.length,
                    "user:test",
                    content ->
                        SpooledDocument.receiveStreamed(
                            new ByteArrayInputStream(next), null, next.length, content),
                    () -> {
                      throw Problem.conflict("lock ID x does not hold workspace 'fenced'");
                    }))
        .isInstanceOf(Problem.class)
        .hasMessageContaining("does not hold");
    assertNothingStored("fenced", before, first, 17);

    DocumentDecider.Outcome stale = pushStreamed(store, "fenced", next, null, 6);
    assertThat(stale.rejection()).isEqualTo(Rejection.STALE_FENCING_TOKEN);
    assertNothingStored("fenced", before, first, 17);

    assertThat(pushStreamed(store, "fenced", next, null, 8).serial())
        .as("the current token still pushes")
        .isEqualTo(18);
    assertThat(store.newestFencingToken(TENANT, "fenced")).isEqualTo(8);
    assertThat(pull(newStore(), "fenced")).isEqualTo(next);
  }

  @Test
  void aBodyShorterThanItsLengthStoresNothing() throws Exception {
    StateStore store = newStore();
    byte[] body = large(17);

    assertThatThrownBy(
            () ->
                store.pushStreamed(
                    TENANT,
                    "short",
                    body.length + 10L,
                    "user:test",
                    content ->
                        SpooledDocument.receiveStreamed(
                            new ByteArrayInputStream(body), null, body.length + 10L, content),
                    () -> 0L))
        .isInstanceOf(Problem.class)
        .hasMessageContaining("Content-Length");
    assertThat(rows("short")).containsExactly(0L, 0L, 0L, 0L);
  }

  @Test
  void spooledAndStreamedPushesLiveSideBySide() throws Exception {
    StateStore store = newStore();
    byte[] spooled = large(17);
    try (SpooledDocument upload =
        SpooledDocument.receive(new ByteArrayInputStream(spooled), null, Long.MAX_VALUE, uploads)) {
      assertThat(store.pushDocument(TENANT, "mixed", 0, "user:test", upload, false).accepted())
          .isTrue();
    }
    assertThat(pull(newStore(), "mixed")).as("a spooled push keeps its bytes").isEqualTo(spooled);
    byte[] streamed = large(18);
    assertThat(pushStreamed(store, "mixed", streamed, null, 0).serial()).isEqualTo(18);
    assertThat(pull(newStore(), "mixed")).isEqualTo(streamed);
    assertThat(rows("mixed")).containsExactly(1L, 2L, 2L, 2L);
    assertThat(newStore().version(TENANT, "mixed", 17).orElseThrow().serial())
        .as("the spooled version still reads")
        .isEqualTo(17);
  }

  @Test
  void aPullOfAKnownSmallDocumentReadsItWithTheHeadElseFallsBack() throws Exception {
    StateStore store = newStore();
    byte[] body = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(realistic(17));
    pushStreamed(store, "pull", body, null, 0);

    StateStore.Pull known = store.currentDocumentForPull(TENANT, "pull");
    assertThat(known.current().stored().md5()).isEqualTo(md5(body));
    assertThat(bytes(known.content())).as("fetched with the head").isEqualTo(body);

    StateStore.Pull unknown = newStore().currentDocumentForPull(TENANT, "pull");
    assertThat(unknown.current().stored()).isEqualTo(known.current().stored());
    assertThat(unknown.content()).as("not cached here: read in slices").isNull();

    assertThat(
            Histories.changes(newStore())
                .changeTaint(TENANT, "pull", "aws_instance.web[0]", true, 0, "user:test")
                .accepted())
        .isTrue();
    StateStore.Pull moved = store.currentDocumentForPull(TENANT, "pull");
    assertThat(moved.current().stored()).as("the head moved on: no longer the document").isNull();
    assertThat(moved.content()).isNull();
    assertThat(moved.current().state().instances().get("aws_instance.web[0]").tainted()).isTrue();

    byte[] big = large(19);
    StateStore other = newStore();
    pushStreamed(other, "pull-large", big, null, 0);
    List<byte[]> held = slices(other.currentDocumentForPull(TENANT, "pull-large").content());
    assertThat(concat(held))
        .as("over two slices but at most 16 MiB: fetched whole with the head")
        .isEqualTo(big);
    assertThat(held)
        .as("held compressed, handed out decompressed a slice at a time")
        .hasSize((big.length + StateStore.DECOMPRESSED_SLICE - 1) / StateStore.DECOMPRESSED_SLICE)
        .allSatisfy(
            slice -> assertThat(slice.length).isLessThanOrEqualTo(StateStore.DECOMPRESSED_SLICE));

    byte[] bigger = larger(23);
    pushStreamed(other, "pull-larger", bigger, null, 0);
    assertThat(other.currentDocumentForPull(TENANT, "pull-larger").content())
        .as("over 16 MiB: streamed in slices, not held whole")
        .isNull();
    assertThat(pull(other, "pull-larger")).isEqualTo(bigger);
  }

  @Test
  void contentRowsAreAppendOnly() throws Exception {
    byte[] body = JSON.writeValueAsBytes(realistic(17));
    pushStreamed(newStore(), "frozen", body, null, 0);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      assertThatThrownBy(
              () -> s.executeUpdate("UPDATE state.document_contents SET content = '\\x00'"))
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM state.document_contents"))
          .hasMessageContaining("append-only");
    }
  }

  private void assertNothingStored(String workspace, List<Long> before, byte[] current, long serial)
      throws Exception {
    assertThat(rows(workspace)).as("content, document, event, version rows").isEqualTo(before);
    assertThat(newStore().versions(TENANT, workspace))
        .last()
        .satisfies(v -> assertThat(v.serial()).isEqualTo(serial));
    assertThat(pull(newStore(), workspace)).as("the newest version unchanged").isEqualTo(current);
  }
}
