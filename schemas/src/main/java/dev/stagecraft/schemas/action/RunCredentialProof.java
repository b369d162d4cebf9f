package dev.stagecraft.schemas.action;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Per-run state credentials (design §8, docs/adr/0013): a random secret the state service mints for
 * one run of one workspace and stores only as its SHA-256 {@link #digest}. The planner presents the
 * credential itself to the state service's internal API; an executor never sends it back over Kafka
 * but a <em>proof</em>: HMAC-SHA256, keyed with the credential's digest, over {@value #CONTEXT},
 * run id, action id and outcome. The state service recomputes it from the digest it stored, so a
 * proof copied onto another action, run or outcome does not verify, and a proof is worthless once
 * the credential is revoked.
 *
 * <p>Stateless and thread-safe.
 */
public final class RunCredentialProof {
  static final String CONTEXT = "dev.stagecraft.action.finished/run-proof/v1";

  /** Every run credential starts with this, so it is told apart from service and API tokens. */
  public static final String PREFIX = "scr_";

  private static final SecureRandom RANDOM = new SecureRandom();

  private RunCredentialProof() {}

  /** A new credential: {@value #PREFIX} and 32 random bytes, URL-safe. */
  public static String newCredential() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** What the state service stores of a credential: its SHA-256, hex. */
  public static String digest(String credential) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(credential.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The proof an executor (or the planner on its behalf) puts in {@code action.finished}. */
  public static String prove(String credential, String runId, String actionId, String outcome) {
    return proveWithDigest(digest(credential), runId, actionId, outcome);
  }

  /** The proof computed from the stored digest, as the state service checks it. */
  public static String proveWithDigest(
      String digestHex, String runId, String actionId, String outcome) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(digestHex.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      String message = CONTEXT + '\n' + runId + '\n' + actionId + '\n' + outcome;
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether {@code proof} was made with the credential whose digest is {@code digestHex}. */
  public static boolean verifies(
      String proof, String digestHex, String runId, String actionId, String outcome) {
    if (proof == null || digestHex == null) {
      return false;
    }
    return MessageDigest.isEqual(
        proveWithDigest(digestHex, runId, actionId, outcome).getBytes(StandardCharsets.UTF_8),
        proof.getBytes(StandardCharsets.UTF_8));
  }
}
