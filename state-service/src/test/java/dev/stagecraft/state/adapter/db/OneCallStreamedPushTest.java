package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.DocumentDecider.Rejection;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The end of a streamed push in one call sent with its {@code COMMIT} (ADR 0040, V12), against a
 * real PostgreSQL: after the content insert, a push on a head this process knows is one message
 * ({@code SAVEPOINT}, {@code state.push_streamed}, {@code COMMIT}) and no further statement or
 * commit; when that call refuses — the head moved under another writer, the token is stale, the
 * bytes are stored already — the push is decided again on the full path, with the same answers and
 * rows as before, and nothing of the refused call is committed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OneCallStreamedPushTest {
  private static final String TENANT = "acme";
  private static final ObjectMapper JSON = new ObjectMapper();

  private StateTestDatabase database;
  private DataSource dataSource;

  /** Every statement's SQL and every commit/rollback on the recorded connections, in order. */
  private final List<String> sent = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void startDatabase() throws Exception {
    database = StateTestDatabase.start("one-call-push");
    dataSource = recording(database.dataSource());
  }

  @AfterAll
  void stopDatabase() throws Exception {
    if (database != null) {
      database.close();
    }
  }

  private static byte[] document(long serial, String marker) throws IOException {
    try (InputStream in =
        OneCallStreamedPushTest.class.getResourceAsStream("/terraform/realistic-v4.tfstate")) {
      Map<String, Object> doc = JSON.readValue(in, new TypeReference<>() {});
      doc.put("serial", serial);
      doc.put("terraform_version", "1.9.0-" + marker); // another marker, other bytes
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc);
    }
  }

  private StateStore newStore() {
    return new StateStore(dataSource, Clock.systemUTC());
  }

  private static DocumentDecider.Outcome push(
      StateStore store, String workspace, byte[] body, long token) throws Exception {
    return store.pushStreamed(
        TENANT,
        workspace,
        body.length,
        "user:test",
        content ->
            SpooledDocument.receiveStreamed(
                new ByteArrayInputStream(body), null, body.length, content),
        () -> token);
  }

  /** What was sent after the content insert of the last push recorded. */
  private List<String> afterContentInsert() {
    List<String> all;
    synchronized (sent) {
      all = List.copyOf(sent);
    }
    int insert = -1;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).startsWith("INSERT INTO state.document_contents")) {
        insert = i;
      }
    }
    assertThat(insert).as("a content insert was sent").isNotNegative();
    return all.subList(insert + 1, all.size());
  }

  @Test
  void aPushOnAKnownHeadIsOneMessageAfterItsContent() throws Exception {
    StateStore store = newStore();
    assertThat(push(store, "known", document(1, "a"), 0).serial()).isEqualTo(1);
    assertThat(afterContentInsert())
        .as("a new workspace: the head read before the body, then one message")
        .singleElement()
        .satisfies(sql -> assertThat(sql).contains("state.push_streamed").endsWith("COMMIT"));
    sent.clear();

    DocumentDecider.Outcome outcome = push(store, "known", document(2, "b"), 3);

    assertThat(outcome.serial()).isEqualTo(2);
    assertThat(sent.get(0))
        .as("the head is known: nothing read before the content")
        .startsWith("INSERT INTO state.document_contents");
    assertThat(afterContentInsert())
        .as("no lock, head, write or commit round trips of their own")
        .singleElement()
        .satisfies(
            sql ->
                assertThat(sql)
                    .startsWith("SAVEPOINT")
                    .contains("state.push_streamed")
                    .endsWith("COMMIT"));
    assertThat(rows("known"))
        .as("content, document, event, version")
        .containsExactly(2L, 2L, 2L, 2L);
    assertThat(newStore().newestFencingToken(TENANT, "known")).isEqualTo(3);
    assertThat(newStore().versions(TENANT, "known"))
        .extracting(StateStore.Version::serial)
        .containsExactly(1L, 2L);
    assertThat(pull("known")).isEqualTo(document(2, "b"));
  }

  @Test
  void aHeadMovedByAnotherWriterIsDecidedAgainOnTheFullPath() throws Exception {
    StateStore stale = newStore();
    StateStore other = newStore();
    assertThat(push(stale, "moved", document(1, "a"), 0).accepted()).isTrue();
    assertThat(push(other, "moved", document(2, "b"), 0).accepted()).isTrue();
    List<Long> before = rows("moved");
    sent.clear();

    DocumentDecider.Outcome sameSerial = push(stale, "moved", document(2, "c"), 0);

    assertThat(sameSerial.rejection())
        .as("decided on its cached head (serial 1) the push looked good; the head moved to 2")
        .isEqualTo(Rejection.SERIAL_UNCHANGED);
    assertThat(afterContentInsert())
        .as("the one call refused, rolled back to its savepoint, then the full path")
        .anySatisfy(sql -> assertThat(sql).contains("state.push_streamed"))
        .anySatisfy(sql -> assertThat(sql).isEqualTo("ROLLBACK TO SAVEPOINT push_streamed"));
    assertThat(rows("moved")).as("nothing stored").isEqualTo(before);
    assertThat(pull("moved")).isEqualTo(document(2, "b"));

    DocumentDecider.Outcome next = push(stale, "moved", document(3, "d"), 0);
    assertThat(next.serial()).isEqualTo(3);
    assertThat(newStore().versions(TENANT, "moved"))
        .extracting(StateStore.Version::sequence)
        .as("no gap, no duplicate")
        .containsExactly(1L, 2L, 3L);
    assertThat(pull("moved")).isEqualTo(document(3, "d"));
  }

  @Test
  void aStaleTokenRefusedByTheCallCommitsNothing() throws Exception {
    StateStore store = newStore();
    assertThat(push(store, "fenced", document(1, "a"), 5).accepted()).isTrue();
    List<Long> before = rows("fenced");
    sent.clear();

    DocumentDecider.Outcome stale = push(store, "fenced", document(2, "b"), 4);

    assertThat(stale.rejection()).isEqualTo(Rejection.STALE_FENCING_TOKEN);
    assertThat(afterContentInsert())
        .anySatisfy(sql -> assertThat(sql).contains("state.push_streamed"));
    assertThat(rows("fenced")).as("not even the content row").isEqualTo(before);
    assertThat(newStore().newestFencingToken(TENANT, "fenced")).isEqualTo(5);
  }

  @Test
  void bytesStoredAlreadyAreReferencedNotStoredAgain() throws Exception {
    StateStore store = newStore();
    byte[] body = document(4, "a");
    assertThat(push(store, "again", body, 0).accepted()).isTrue();
    assertThat(Histories.changes(store).delete(TENANT, "again", 0, "user:test", "test").accepted())
        .isTrue();
    sent.clear();

    DocumentDecider.Outcome pushed = push(store, "again", body, 0);

    assertThat(pushed.serial()).isEqualTo(4);
    assertThat(afterContentInsert())
        .as("the state is empty, so the one call was tried; it found the bytes stored")
        .anySatisfy(sql -> assertThat(sql).contains("state.push_streamed"));
    assertThat(rows("again").subList(0, 3))
        .as("one content row and one document row for three events: push, delete, push")
        .containsExactly(1L, 1L, 3L);
    assertThat(pull("again")).isEqualTo(body);
  }

  private byte[] pull(String workspace) throws Exception {
    StateStore store = newStore();
    StateStore.CurrentDocument current = store.currentDocument(TENANT, workspace);
    assertThat(current.stored()).as("the state is the pushed document").isNotNull();
    try (InputStream in = store.openDocument(TENANT, workspace, current.stored())) {
      return in.readAllBytes();
    }
  }

  /** Rows of the workspace in the content, document, event and version tables. */
  private List<Long> rows(String workspace) throws Exception {
    return StoredRows.ofWorkspace(database.dataSource(), TENANT, workspace);
  }

  /**
   * {@code target} with connections that add to {@link #sent} the SQL of every statement they
   * prepare or execute and every {@code commit}/{@code rollback} call (the real connections do the
   * work).
   */
  private DataSource recording(DataSource target) {
    return proxy(
        DataSource.class,
        target,
        (method, args, result) ->
            method.equals("getConnection") ? recordingConnection((Connection) result) : result);
  }

  private Connection recordingConnection(Connection target) {
    return proxy(
        Connection.class,
        target,
        (method, args, result) -> {
          switch (method) {
            case "prepareStatement", "prepareCall" -> sent.add(((String) args[0]).strip());
            case "commit" -> sent.add("commit()");
            case "rollback" -> sent.add("rollback()");
            case "createStatement" -> {
              return recordingStatement((Statement) result);
            }
            default -> {}
          }
          return result;
        });
  }

  private Statement recordingStatement(Statement target) {
    return proxy(
        Statement.class,
        target,
        (method, args, result) -> result,
        (method, args) -> {
          if (method.startsWith("execute") && args != null && args[0] instanceof String sql) {
            sent.add(sql.strip());
          }
        });
  }

  @FunctionalInterface
  private interface After {
    Object apply(String method, Object[] args, Object result) throws Exception;
  }

  @FunctionalInterface
  private interface Before {
    void accept(String method, Object[] args);
  }

  private static <T> T proxy(Class<T> type, T target, After after) {
    return proxy(type, target, after, (method, args) -> {});
  }

  private static <T> T proxy(Class<T> type, T target, After after, Before before) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, method, args) -> {
              before.accept(method.getName(), args);
              Object result;
              try {
                result = method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              return after.apply(method.getName(), args, result);
            }));
  }
}
