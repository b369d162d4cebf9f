package dev.stagecraft.planner.service.source;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How each forge signs its webhooks, checked against a tenant's trigger secrets (any of them may
 * match, so a rotation's grace period works): GitHub {@code X-Hub-Signature-256: sha256=<hex
 * HMAC-SHA256 of the raw body>}, Gitea {@code X-Gitea-Signature: <hex HMAC-SHA256 of the raw
 * body>}, GitLab {@code X-Gitlab-Token: <the secret itself>}. Every comparison takes constant time.
 * Stateless and thread-safe.
 */
public final class PushSignatures {
  private PushSignatures() {}

  /** The hex HMAC-SHA256 of {@code body} keyed with the UTF-8 bytes of {@code secret}. */
  public static String hmacHex(String secret, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }

  /** GitHub: {@code header} is {@code sha256=} and the body's HMAC with one of {@code secrets}. */
  public static boolean github(List<String> secrets, byte[] body, String header) {
    if (header == null) {
      return false;
    }
    String sent = header.strip().toLowerCase(Locale.ROOT);
    boolean any = false;
    for (String secret : secrets) {
      any |= same("sha256=" + hmacHex(secret, body), sent);
    }
    return any;
  }

  /** Gitea: {@code header} is the body's hex HMAC with one of {@code secrets}. */
  public static boolean gitea(List<String> secrets, byte[] body, String header) {
    if (header == null) {
      return false;
    }
    String sent = header.strip().toLowerCase(Locale.ROOT);
    boolean any = false;
    for (String secret : secrets) {
      any |= same(hmacHex(secret, body), sent);
    }
    return any;
  }

  /** GitLab: {@code header} is one of {@code secrets}. */
  public static boolean gitlab(List<String> secrets, String header) {
    if (header == null) {
      return false;
    }
    boolean any = false;
    for (String secret : secrets) {
      // compared as digests, so neither the content nor the length of a guess leaks
      any |= MessageDigest.isEqual(sha256(secret), sha256(header));
    }
    return any;
  }

  private static boolean same(String expected, String sent) {
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII), sent.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }
}
