package dev.stagecraft.platform.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/** API tokens: generated with a secure random, stored only as their SHA-256 hash. */
public final class TokenHash {
  private static final SecureRandom RANDOM = new SecureRandom();

  private TokenHash() {}

  /** A new token, {@code sc_} followed by 32 random bytes, URL-safe. */
  public static String newToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return "sc_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public static String sha256(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Constant-time comparison, for shared secrets such as the service token. */
  public static boolean matches(String expected, String presented) {
    if (expected == null || presented == null) {
      return false;
    }
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
  }
}
