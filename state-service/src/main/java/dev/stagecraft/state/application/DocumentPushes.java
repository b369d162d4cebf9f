package dev.stagecraft.state.application;

import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.DocumentDecider.Outcome;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StoredDocument;
import java.io.IOException;
import java.sql.SQLException;

/**
 * Use case: push a whole state document (the Terraform HTTP backend's POST, {@code stagecraft state
 * push}; ADR 0022, 0031, 0040) with the rules of {@link DocumentDecider#pushStored}. Through the
 * {@link PushLog} port, in one transaction: the workspace's head and its stored document under the
 * row lock, the decision, then the one statement that stores the document, its event and version
 * row; again on the head read anew when a fast append took the sequence (at most {@value
 * #MAX_WRITE_ATTEMPTS} times, then SQLSTATE 40001). A streamed push first tries its common case — a
 * valid document with a higher serial than the head this process knows — decided on that head and
 * written in one call that the database refuses when the head moved, the token is stale or the
 * bytes are stored already; then it takes the locked path. The document is never held whole here:
 * the port holds its bytes, the decision needs only its reference.
 *
 * <p>Nothing is written unless the push is accepted with events. Thread-safe (no state of its own);
 * pushes to one workspace serialize on its row lock in the database.
 */
public final class DocumentPushes {
  /** How often a push decides again after a fast append took its sequence, before it gives up. */
  public static final int MAX_WRITE_ATTEMPTS = ActionResults.MAX_APPEND_ATTEMPTS;

  /** Gives the fencing token to push under once the body is received (the lock check's result). */
  @FunctionalInterface
  public interface FencingTokenSource {
    /**
     * @throws RuntimeException the lock's refusal (an HTTP problem), as the lock check threw it
     */
    long token() throws SQLException;
  }

  private final PushLog log;

  public DocumentPushes(PushLog log) {
    this.log = log;
  }

  /**
   * Pushes {@code upload}, received before, under {@code fencingToken}; with {@code force} another
   * lineage or an older serial replace the state (stored with serial current + 1 when not above).
   * Memory: the document is never held whole, except for the rare same-serial comparison.
   *
   * @param actor who asked (stored with the event)
   * @return the outcome; nothing was written unless it was accepted with events
   */
  public Outcome push(
      String tenant,
      String workspace,
      long fencingToken,
      String actor,
      PushLog.Upload upload,
      boolean force)
      throws SQLException {
    try (PushLog.SpooledPush push = log.open(tenant, workspace, upload)) {
      PushLog.Locked at = push.lock();
      for (int attempt = 1; ; attempt++) {
        PushLog.Head head = at.head();
        PushLog.Upload[] stored = {upload};
        Outcome outcome =
            DocumentDecider.pushStored(
                upload.document(),
                upload.problems(),
                head.state(),
                head.document(),
                force,
                fencingToken,
                at.newest(),
                () -> push.sameContent(head),
                serial -> {
                  stored[0] = upload.withSerial(serial);
                  return stored[0].document();
                });
        if (writesNothing(outcome)) {
          return outcome;
        }
        if (push.write(at, stored[0], event(outcome), fencingToken, actor)
            == PushLog.Write.COMMITTED) {
          return outcome;
        }
        lostSequence(tenant, workspace, attempt);
        at = push.again();
      }
    }
  }

  /**
   * Pushes a document of {@code length} bytes while {@code receiver} receives it (ADR 0031), never
   * forced, under the token {@code fencingToken} gives once the body is received.
   *
   * @return the outcome; nothing was written unless it was accepted with events
   * @throws RuntimeException the receiver's or the token source's refusal, as they threw it
   */
  public Outcome pushStreamed(
      String tenant,
      String workspace,
      long length,
      String actor,
      PushLog.Receiver receiver,
      FencingTokenSource fencingToken)
      throws SQLException, IOException {
    try (PushLog.StreamedPush push = log.receive(tenant, workspace, length, receiver)) {
      long token = fencingToken.token();
      Outcome committed = inOneCall(push, token, actor);
      if (committed != null) {
        return committed;
      }
      StoredDocument upload = push.received().document();
      PushLog.Locked at = push.lock();
      for (int attempt = 1; ; attempt++) {
        PushLog.Head head = at.head();
        Outcome outcome =
            DocumentDecider.pushStored(
                upload,
                push.received().problems(),
                head.state(),
                head.document(),
                false,
                token,
                at.newest(),
                () -> push.sameContent(head),
                DocumentPushes::neverForced);
        if (writesNothing(outcome)) {
          return outcome;
        }
        if (push.write(at, event(outcome), token, actor) == PushLog.Write.COMMITTED) {
          return outcome;
        }
        lostSequence(tenant, workspace, attempt);
        at = push.again();
      }
    }
  }

  /**
   * The common case of a streamed push in one call (ADR 0040): a valid document with a higher
   * serial than the known head's, decided on that head taking the token as the newest (the call
   * checks it).
   *
   * @return the committed outcome, or null: decide on the locked path (nothing but the content was
   *     written)
   */
  private static Outcome inOneCall(PushLog.StreamedPush push, long token, String actor)
      throws SQLException {
    PushLog.Received received = push.received();
    PushLog.Head known = push.known();
    StoredDocument upload = received.document();
    if (!received.problems().isEmpty()
        || (!known.state().isEmpty() && upload.serial() <= known.state().serial())) {
      return null; // refused, or compared with the current document: the locked path decides
    }
    Outcome outcome =
        DocumentDecider.pushStored(
            upload,
            received.problems(),
            known.state(),
            known.document(),
            false,
            token,
            token,
            () -> {
              throw new IllegalStateException("a higher serial is never compared");
            },
            DocumentPushes::neverForced);
    if (writesNothing(outcome)) {
      return null;
    }
    return push.writeInOneCall(known, event(outcome), token, actor) ? outcome : null;
  }

  private static StoredDocument neverForced(long serial) {
    throw new IllegalStateException("a streamed push is never forced");
  }

  /** Refused, or accepted with nothing to write (the same document again). */
  private static boolean writesNothing(Outcome outcome) {
    return !outcome.accepted() || outcome.events().isEmpty();
  }

  /** The one event an accepted push appends ({@code state_pushed}). */
  private static StateEvent event(Outcome outcome) {
    return outcome.events().get(0);
  }

  /** Gives up, as transient, once the attempts are spent. */
  private static void lostSequence(String tenant, String workspace, int attempt)
      throws SQLException {
    if (attempt >= MAX_WRITE_ATTEMPTS) {
      throw new SQLException(
          "a push to workspace "
              + tenant
              + "/"
              + workspace
              + " lost the race for its sequence "
              + attempt
              + " times in a row; retry later",
          "40001");
    }
  }
}
