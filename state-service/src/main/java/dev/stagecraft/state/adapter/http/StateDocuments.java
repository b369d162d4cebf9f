package dev.stagecraft.state.adapter.http;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.TerraformStateV4;
import dev.stagecraft.state.history.WorkspaceState;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.BiFunction;

/** Reading uploaded state documents and writing state documents out, for the HTTP adapters. */
final class StateDocuments {
  /** Strict: duplicate keys and trailing content are errors; decimals keep their precision. */
  private static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static final ObjectMapper OUT = new ObjectMapper();

  private StateDocuments() {}

  /**
   * Checks {@code Content-MD5} (base64 of the body's MD5, as Terraform sends it) when present.
   *
   * @throws Problem 400 naming both digests when it does not match
   */
  static void checkContentMd5(String header, byte[] body) {
    if (header == null || header.isBlank()) {
      return;
    }
    String actual = md5(body);
    if (!actual.equals(header.trim())) {
      throw Problem.badRequest(
          "Content-MD5 "
              + header.trim()
              + " does not match the body received (MD5 "
              + actual
              + "): the upload was corrupted or changed in transit; nothing was stored, send it"
              + " again");
    }
  }

  static String md5(byte[] body) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The upload parsed as plain JSON values.
   *
   * @throws Problem 400 with the line and column of the first syntax error
   */
  static Object parse(byte[] body) {
    if (body == null || body.length == 0) {
      throw Problem.badRequest("the body is empty: send a Terraform state v4 JSON document");
    }
    try {
      return STRICT.readValue(body, Object.class);
    } catch (JsonParseException e) {
      throw Problem.badRequest(
          "the body is not valid JSON: "
              + e.getOriginalMessage()
              + " at line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + "; nothing was stored");
    } catch (java.io.IOException e) {
      throw Problem.badRequest("the body is not valid JSON: " + e.getMessage());
    }
  }

  /**
   * An uploaded document: checked against {@code contentMd5} when sent, then parsed as plain JSON
   * values.
   *
   * @throws Problem 400 when the digest does not match or the body is not JSON
   */
  static Object parseUpload(String body, String contentMd5) {
    byte[] bytes = utf8(body);
    checkContentMd5(contentMd5, bytes);
    return parse(bytes);
  }

  /**
   * Changes the workspace's document for {@code principal} (its tenant; recorded with its actor,
   * outside any run) under the fencing {@code token}, as {@link StateStore#changeDocument} does.
   *
   * @return the accepted outcome
   * @throws Problem the HTTP form of a refusal, as {@link #requireAccepted} throws it
   */
  static DocumentDecider.Outcome change(
      StateStore states,
      Principal principal,
      String workspace,
      long token,
      BiFunction<WorkspaceState, Long, DocumentDecider.Outcome> decide)
      throws SQLException {
    DocumentDecider.Outcome outcome =
        states.changeDocument(
            principal.tenant(), workspace, token, null, principal.actor(), decide);
    requireAccepted(outcome);
    return outcome;
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

  /** Throws the HTTP form of a refused document change; returns when it was accepted. */
  static void requireAccepted(DocumentDecider.Outcome outcome) {
    if (outcome.accepted()) {
      return;
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
