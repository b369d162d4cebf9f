package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.application.DocumentPushes;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Pushing uploaded state documents (received as streams, see {@link DocumentUploads}) and writing
 * state documents out, for the HTTP adapters.
 */
final class StateDocuments {
  private static final ObjectMapper OUT = new ObjectMapper();

  private StateDocuments() {}

  static String md5(byte[] body) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The state as v4 JSON bytes. */
  static byte[] render(WorkspaceState state) {
    try {
      return OUT.writeValueAsBytes(TerraformStateV4.render(state, state.lineage()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("state not serializable", e);
    }
  }

  /** 200 with the v4 JSON and its {@code Content-MD5}, or 204 when the state is empty. */
  static HttpResponse<byte[]> respond(WorkspaceState state) {
    if (state.isEmpty()) {
      return HttpResponse.noContent();
    }
    byte[] body = render(state);
    return HttpResponse.<byte[]>ok(body)
        .contentType("application/json")
        .header("Content-MD5", md5(body));
  }

  /**
   * Pushes an uploaded document for {@code principal} (its tenant; recorded with its actor) under
   * the fencing {@code token} ({@link DocumentPushes#push}); closes the upload.
   *
   * @return the accepted outcome
   * @throws Problem the HTTP form of a refusal, as {@link #requireAccepted} throws it
   */
  static DocumentDecider.Outcome push(
      DocumentPushes pushes,
      Principal principal,
      String workspace,
      long token,
      SpooledDocument upload,
      boolean force)
      throws SQLException {
    try (upload) {
      DocumentDecider.Outcome outcome =
          pushes.push(principal.tenant(), workspace, token, principal.actor(), upload, force);
      requireAccepted(outcome);
      return outcome;
    }
  }

  /** Runs the lock checks that overlap an upload; a virtual thread each (they mostly wait). */
  private static final ExecutorService LOCK_CHECKS = Executors.newVirtualThreadPerTaskExecutor();

  /**
   * Receives an upload and pushes it for {@code principal} under the fencing token {@link
   * BackendLocks#writeToken} gives for {@code lockId}: the lock check (a call to the lock service
   * and, when the workspace is not locked, a query of the newest token) runs on another thread
   * while the body is received, so its latency hides behind the upload. Errors keep their order: a
   * refused upload (400, 413) is reported before a refused lock (423, 409, 503), as when the check
   * followed the upload; the token is still checked against the newest under the workspace's row
   * lock when the push is written (a stale one is refused), so checking it early opens no gap for a
   * writer whose lock was taken over meanwhile.
   *
   * <p>When the body's length is known ({@code Content-Length}, within the size limit), the push is
   * not forced and a streamed push's place is free ({@link DocumentUploads#tryStartStreaming}), the
   * bytes go into PostgreSQL while they are received and validated ({@link
   * DocumentPushes#pushStreamed}, ADR 0031: no file, one pass, the transaction rolled back when
   * anything is refused); otherwise they are spooled to a file first ({@link DocumentPushes#push},
   * ADR 0022), as a forced push may have to rewrite them.
   *
   * @param contentLength the body's declared length, or null when it is not known (chunked)
   * @return the accepted outcome
   * @throws Problem the refusal of the upload, the lock or the push
   */
  static DocumentDecider.Outcome receiveAndPush(
      DocumentPushes pushes,
      DocumentUploads uploads,
      BackendLocks locks,
      Principal principal,
      String workspace,
      String lockId,
      InputStream body,
      String contentMd5,
      Long contentLength,
      boolean force)
      throws SQLException {
    Future<Long> token = LOCK_CHECKS.submit(() -> locks.writeToken(principal, workspace, lockId));
    if (!force
        && contentLength != null
        && contentLength > 0
        && contentLength <= uploads.maxDocumentSize()
        && uploads.tryStartStreaming()) {
      try (InputStream in = body) {
        DocumentDecider.Outcome outcome =
            pushes.pushStreamed(
                principal.tenant(),
                workspace,
                contentLength,
                principal.actor(),
                uploads.streamedReceiver(in, contentMd5, contentLength),
                () -> join(token));
        requireAccepted(outcome);
        return outcome;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot receive the uploaded state document", e);
      } finally {
        uploads.endStreaming();
        token.cancel(true); // a no-op once joined
      }
    }
    SpooledDocument document;
    try {
      document = uploads.receive(body, contentMd5);
    } catch (RuntimeException e) {
      token.cancel(true);
      throw e;
    }
    long fencingToken;
    try {
      fencingToken = join(token);
    } catch (SQLException | RuntimeException e) {
      document.close();
      throw e;
    }
    return push(pushes, principal, workspace, fencingToken, document, force);
  }

  /** The lock check's token, or its failure as it threw it. */
  private static long join(Future<Long> token) throws SQLException {
    try {
      return token.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof SQLException q) {
        throw q;
      }
      throw new IllegalStateException("the lock check failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking the workspace lock", e);
    }
  }

  /**
   * The workspace's current state as a pull sends it: 200 with the stored document's bytes, as they
   * were pushed, their length and the stored MD5 when the state is still exactly a pushed document
   * (not parsed; fetched with the head in one statement when this process knows the document and it
   * is at most 16 MiB, ADR 0031 and 0036, else streamed from the database in slices; sent by {@link
   * StoredDocumentBodyWriter}); else the rendered state as {@link #respond} sends it; 204 when
   * empty.
   */
  static HttpResponse<?> respondCurrent(StateStore states, String tenant, String workspace)
      throws SQLException {
    StateStore.Pull pull = states.currentDocumentForPull(tenant, workspace);
    StateStore.CurrentDocument current = pull.current();
    if (current.stored() == null) {
      return respond(current.state());
    }
    // read along with the head (ADR 0031): sent from memory, no second query; else from the
    // database
    return HttpResponse.ok(
            new StoredDocumentBody(states, tenant, workspace, current.stored(), pull.content()))
        .contentType("application/json")
        .header("Content-MD5", current.stored().md5());
  }

  /** Throws the HTTP form of a refused document change; returns {@code outcome} when accepted. */
  static DocumentDecider.Outcome requireAccepted(DocumentDecider.Outcome outcome) {
    if (outcome.accepted()) {
      return outcome;
    }
    switch (outcome.rejection()) {
      case INVALID -> {
        List<Object> problems = new ArrayList<>(outcome.problems());
        throw new Problem(
            Problem.typeFor("Invalid state"),
            400,
            "Invalid state",
            "the upload is not a valid Terraform state v4 document ("
                + outcome.problems().size()
                + " problem(s)): "
                + outcome.error()
                + "; nothing was stored",
            problems);
      }
      case STALE_FENCING_TOKEN ->
          throw new Problem(
              Problem.typeFor("Stale fencing token"),
              409,
              "Stale fencing token",
              outcome.error(),
              null);
      default ->
          throw new Problem(
              Problem.typeFor("State conflict"),
              409,
              "State conflict",
              outcome.error() + "; nothing was stored",
              null);
    }
  }

  static byte[] utf8(String body) {
    return body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
  }

  static HttpStatus ok() {
    return HttpStatus.OK;
  }
}
