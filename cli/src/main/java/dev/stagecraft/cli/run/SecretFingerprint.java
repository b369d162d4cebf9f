package dev.stagecraft.cli.run;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A salted, slow fingerprint of a sensitive variable's value, kept in a saved plan instead of the
 * value (docs/runs.md, "Saved plans"): {@code apply FILE} checks that the value given again is the
 * one the plan was made with, and the file does not reveal it. PBKDF2-HMAC-SHA256 with a random
 * 16-byte salt and {@value #ITERATIONS} iterations (OWASP's figure for this function), so that a
 * copy of the file does not make guessing a weak value cheap. Text form: {@code
 * pbkdf2-sha256$<iterations>$<salt, base64>$<hash, base64>}.
 */
final class SecretFingerprint {
  static final int ITERATIONS = 600_000;
  private static final String PREFIX = "pbkdf2-sha256";
  private static final SecureRandom RANDOM = new SecureRandom();

  private SecretFingerprint() {}

  /** A new fingerprint of {@code value}, with a fresh salt. */
  static String of(String value) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    return format(ITERATIONS, salt, hash(value, salt, ITERATIONS));
  }

  /**
   * Whether {@code value} is the value {@code fingerprint} was made of.
   *
   * @throws IllegalArgumentException when {@code fingerprint} is not one this class writes
   */
  static boolean matches(String fingerprint, String value) {
    String[] parts = fingerprint.split("\\$", -1);
    if (parts.length != 4 || !PREFIX.equals(parts[0])) {
      throw new IllegalArgumentException("not a " + PREFIX + " fingerprint");
    }
    int iterations;
    byte[] salt;
    byte[] expected;
    try {
      iterations = Integer.parseInt(parts[1]);
      salt = Base64.getDecoder().decode(parts[2]);
      expected = Base64.getDecoder().decode(parts[3]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a " + PREFIX + " fingerprint", e);
    }
    if (iterations < 1 || iterations > 10_000_000 || salt.length == 0 || expected.length == 0) {
      throw new IllegalArgumentException("not a " + PREFIX + " fingerprint");
    }
    return MessageDigest.isEqual(expected, hash(value, salt, iterations));
  }

  private static String format(int iterations, byte[] salt, byte[] hash) {
    Base64.Encoder b64 = Base64.getEncoder();
    return PREFIX
        + "$"
        + iterations
        + "$"
        + b64.encodeToString(salt)
        + "$"
        + b64.encodeToString(hash);
  }

  private static byte[] hash(String value, byte[] salt, int iterations) {
    // PBEKeySpec takes chars; the UTF-8 bytes go through ISO-8859-1 so every byte is kept as is
    char[] chars =
        new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1)
            .toCharArray();
    PBEKeySpec spec = new PBEKeySpec(chars, salt, iterations, 256);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", e);
    } finally {
      spec.clearPassword();
      Arrays.fill(chars, '\0');
    }
  }
}
