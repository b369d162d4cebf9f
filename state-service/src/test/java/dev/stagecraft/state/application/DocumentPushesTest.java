package dev.stagecraft.state.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.DocumentDecider.Rejection;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.WorkspaceState;
import java.io.InputStream;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pushing a document against a scripted {@link PushLog}: what the use case decides on the heads the
 * port reads and what it asks the port to write, without a database (the store's side:
 * StoredDocumentStoreTest, StreamedDocumentPushTest, OneCallStreamedPushTest).
 */
class DocumentPushesTest {
  private static final String LINEAGE = "lineage-1";

  @Test
  void aSpooledPushIsDecidedOnTheLockedHeadAndWrittenAfterIt() throws Exception {
    ScriptedLog log = new ScriptedLog(locked(documentHead(4, 3), 5));
    log.writes.add(PushLog.Write.COMMITTED);

    DocumentDecider.Outcome outcome =
        new DocumentPushes(log).push("t", "w", 7, "user:a", new FakeUpload(doc(4)), false);

    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.serial()).isEqualTo(4);
    assertThat(log.written)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.at().head().sequence()).isEqualTo(4);
              assertThat(w.document()).isEqualTo(doc(4));
              assertThat(w.token()).isEqualTo(7);
              assertThat(w.actor()).isEqualTo("user:a");
              assertThat(((StateEvent.StateReplaced) w.event()).stored()).isEqualTo(doc(4));
            });
    assertThat(log.closed).isTrue();
  }

  @Test
  void aRefusedPushWritesNothing() throws Exception {
    ScriptedLog log = new ScriptedLog(locked(documentHead(4, 3), 5));

    DocumentDecider.Outcome backwards =
        new DocumentPushes(log).push("t", "w", 5, "user:a", new FakeUpload(doc(2)), false);

    assertThat(backwards.rejection()).isEqualTo(Rejection.SERIAL_BACKWARDS);
    assertThat(log.written).isEmpty();
    assertThat(log.closed).as("closed: what was not committed rolled back").isTrue();

    ScriptedLog stale = new ScriptedLog(locked(documentHead(4, 3), 9));
    assertThat(
            new DocumentPushes(stale)
                .push("t", "w", 8, "user:a", new FakeUpload(doc(5)), false)
                .rejection())
        .as("the newest token comes from the locked read")
        .isEqualTo(Rejection.STALE_FENCING_TOKEN);
    assertThat(stale.written).isEmpty();
  }

  @Test
  void aSameSerialPushAsksThePortToCompareAndWritesNothingWhenTheSame() throws Exception {
    StoredDocument other = new StoredDocument("other", "md5", 10, 3, LINEAGE);
    ScriptedLog same = new ScriptedLog(locked(documentHead(4, 3), 0));
    same.sameContent = true;

    DocumentDecider.Outcome outcome =
        new DocumentPushes(same).push("t", "w", 0, "user:a", new FakeUpload(other), false);

    assertThat(outcome.accepted()).isTrue();
    assertThat(outcome.events()).isEmpty();
    assertThat(same.compared).containsExactly(4L);
    assertThat(same.written).isEmpty();

    ScriptedLog differs = new ScriptedLog(locked(documentHead(4, 3), 0));
    assertThat(
            new DocumentPushes(differs)
                .push("t", "w", 0, "user:a", new FakeUpload(other), false)
                .rejection())
        .isEqualTo(Rejection.SERIAL_UNCHANGED);
  }

  @Test
  void aForcedPushOverANewerStateWritesTheRewrittenUpload() throws Exception {
    ScriptedLog log = new ScriptedLog(locked(documentHead(4, 9), 0));
    log.writes.add(PushLog.Write.COMMITTED);
    StoredDocument foreign = new StoredDocument("d2", "md5", 10, 2, "another");

    DocumentDecider.Outcome outcome =
        new DocumentPushes(log).push("t", "w", 0, "user:a", new FakeUpload(foreign), true);

    assertThat(outcome.serial()).isEqualTo(10);
    assertThat(log.written)
        .singleElement()
        .satisfies(w -> assertThat(w.document().serial()).isEqualTo(10));
  }

  @Test
  void aTakenSequenceIsDecidedAgainOnTheHeadReadAgain() throws Exception {
    ScriptedLog log = new ScriptedLog(locked(documentHead(4, 3), 0), locked(foldedHead(5, 4), 0));
    log.writes.add(PushLog.Write.SEQUENCE_TAKEN);
    log.writes.add(PushLog.Write.COMMITTED);

    DocumentDecider.Outcome outcome =
        new DocumentPushes(log).push("t", "w", 0, "user:a", new FakeUpload(doc(6)), false);

    assertThat(outcome.accepted()).isTrue();
    assertThat(log.written).extracting(w -> w.at().head().sequence()).containsExactly(4L, 5L);
    assertThat(log.locks).as("locked once, the head read again under it").isEqualTo(1);
  }

  @Test
  void aSequenceTakenEveryTimeGivesUpAsTransient() {
    ScriptedLog log = new ScriptedLog(locked(documentHead(4, 3), 0));
    log.alwaysTaken = true;

    SQLException e =
        catchThrowableOfType(
            SQLException.class,
            () ->
                new DocumentPushes(log).push("t", "w", 0, "user:a", new FakeUpload(doc(6)), false));

    assertThat(e.getSQLState()).isEqualTo("40001");
    assertThat(log.written).hasSize(DocumentPushes.MAX_WRITE_ATTEMPTS);
  }

  @Test
  void aStreamedPushOnAKnownOlderHeadIsOneCallWithoutTheLock() throws Exception {
    ScriptedLog log = new ScriptedLog();
    log.known = documentHead(4, 3);
    log.received = new PushLog.Received(doc(4), List.of());
    log.oneCall = true;

    DocumentDecider.Outcome outcome = streamed(log, 7);

    assertThat(outcome.serial()).isEqualTo(4);
    assertThat(log.oneCalls).containsExactly(7L);
    assertThat(log.locks).isZero();
    assertThat(log.written).isEmpty();
  }

  @Test
  void aRefusedOneCallIsDecidedAgainUnderTheLock() throws Exception {
    ScriptedLog log = new ScriptedLog(locked(documentHead(6, 5), 9));
    log.known = documentHead(4, 3);
    log.received = new PushLog.Received(doc(4), List.of());
    log.oneCall = false; // the head moved, the token is stale: the call refused

    DocumentDecider.Outcome outcome = streamed(log, 7);

    assertThat(log.oneCalls).hasSize(1);
    assertThat(log.locks).isEqualTo(1);
    assertThat(outcome.rejection())
        .as("decided on the locked head and the newest token read there")
        .isEqualTo(Rejection.STALE_FENCING_TOKEN);
    assertThat(log.written).isEmpty();
  }

  @Test
  void anInvalidOrNotNewerStreamedPushSkipsTheOneCall() throws Exception {
    ScriptedLog invalid = new ScriptedLog(locked(documentHead(4, 3), 0));
    invalid.known = documentHead(4, 3);
    invalid.received = new PushLog.Received(doc(5), List.of("$.version: must be 4"));

    assertThat(streamed(invalid, 0).rejection()).isEqualTo(Rejection.INVALID);
    assertThat(invalid.oneCalls).isEmpty();

    ScriptedLog same = new ScriptedLog(locked(documentHead(4, 3), 0));
    same.known = documentHead(4, 3);
    same.received = new PushLog.Received(doc(3), List.of());

    DocumentDecider.Outcome again = streamed(same, 0);

    assertThat(again.accepted()).as("the same bytes: nothing to write").isTrue();
    assertThat(again.events()).isEmpty();
    assertThat(same.oneCalls).isEmpty();
    assertThat(same.locks).isEqualTo(1);
    assertThat(same.written).isEmpty();
  }

  @Test
  void aStreamedPushWrittenUnderTheLockAfterATakenSequence() throws Exception {
    ScriptedLog log = new ScriptedLog(locked(documentHead(4, 3), 0), locked(foldedHead(5, 4), 0));
    log.known = documentHead(4, 3);
    log.received = new PushLog.Received(doc(6), List.of());
    log.writes.add(PushLog.Write.SEQUENCE_TAKEN);
    log.writes.add(PushLog.Write.COMMITTED);

    DocumentDecider.Outcome outcome = streamed(log, 0);

    assertThat(outcome.serial()).isEqualTo(6);
    assertThat(log.oneCalls).hasSize(1);
    assertThat(log.written).extracting(w -> w.at().head().sequence()).containsExactly(4L, 5L);
    assertThat(log.closed).isTrue();
  }

  private static DocumentDecider.Outcome streamed(ScriptedLog log, long token) throws Exception {
    return new DocumentPushes(log)
        .pushStreamed("t", "w", 10, "user:a", content -> null, () -> token);
  }

  private static StoredDocument doc(long serial) {
    return new StoredDocument("digest-" + serial, "md5", 10, serial, LINEAGE);
  }

  private static PushLog.Head documentHead(long sequence, long serial) {
    StoredDocument d = doc(serial);
    return new PushLog.Head(sequence, new WorkspaceState(serial, LINEAGE, Map.of()), d);
  }

  private static PushLog.Head foldedHead(long sequence, long serial) {
    return new PushLog.Head(sequence, new WorkspaceState(serial, LINEAGE, Map.of()), null);
  }

  private static PushLog.Locked locked(PushLog.Head head, long newest) {
    return new PushLog.Locked(head, newest);
  }

  private record Written(
      PushLog.Locked at, StoredDocument document, StateEvent event, long token, String actor) {}

  /** An upload held in memory; its rewrite keeps everything but the serial. */
  private record FakeUpload(StoredDocument document) implements PushLog.Upload {
    @Override
    public List<String> problems() {
      return List.of();
    }

    @Override
    public InputStream open() {
      return InputStream.nullInputStream();
    }

    @Override
    public Object parse() {
      throw new AssertionError("the port compares, not the use case");
    }

    @Override
    public PushLog.Upload withSerial(long serial) {
      StoredDocument d = document;
      return new FakeUpload(
          new StoredDocument(d.digest() + "'", d.md5(), d.size(), serial, d.lineage()));
    }
  }

  /** Heads read in order (the last one again), scripted write answers, what was asked. */
  private static final class ScriptedLog implements PushLog {
    final Deque<Locked> heads;
    final Deque<Write> writes = new ArrayDeque<>();
    final List<Written> written = new ArrayList<>();
    final List<Long> compared = new ArrayList<>();
    final List<Long> oneCalls = new ArrayList<>();
    boolean alwaysTaken;
    boolean sameContent;
    boolean oneCall;
    Head known;
    Received received;
    int locks;
    boolean closed;

    ScriptedLog(Locked... heads) {
      this.heads = new ArrayDeque<>(List.of(heads));
    }

    private Locked next() {
      return heads.size() > 1 ? heads.removeFirst() : heads.getFirst();
    }

    private Write answer() {
      return alwaysTaken ? Write.SEQUENCE_TAKEN : writes.removeFirst();
    }

    @Override
    public SpooledPush open(String tenant, String workspace, Upload upload) {
      return new Scripted();
    }

    @Override
    public StreamedPush receive(String tenant, String workspace, long length, Receiver receiver) {
      return new Scripted();
    }

    private final class Scripted implements SpooledPush, StreamedPush {
      @Override
      public Locked lock() {
        locks++;
        return next();
      }

      @Override
      public Locked again() {
        return next();
      }

      @Override
      public boolean sameContent(Head head) {
        compared.add(head.sequence());
        return sameContent;
      }

      @Override
      public Write write(
          Locked at, Upload upload, StateEvent event, long fencingToken, String actor) {
        written.add(new Written(at, upload.document(), event, fencingToken, actor));
        return answer();
      }

      @Override
      public Received received() {
        return received;
      }

      @Override
      public Head known() {
        return known;
      }

      @Override
      public boolean writeInOneCall(Head known, StateEvent event, long fencingToken, String actor) {
        oneCalls.add(fencingToken);
        return oneCall;
      }

      @Override
      public Write write(Locked at, StateEvent event, long fencingToken, String actor) {
        written.add(new Written(at, received.document(), event, fencingToken, actor));
        return answer();
      }

      @Override
      public void close() {
        closed = true;
      }
    }
  }
}
