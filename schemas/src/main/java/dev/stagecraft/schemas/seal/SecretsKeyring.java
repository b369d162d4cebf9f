package dev.stagecraft.schemas.seal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES-256 keys that seal secrets travelling on Kafka (design §8), read from {@code
 * STAGECRAFT_SECRETS_KEYS}: {@code kid1:base64key,kid0:base64key}. The <em>first</em> key seals;
 * every key opens, so a rotation adds a new key in front and drops the old one only once no event
 * sealed with it can still be delivered (docs/operations.md).
 *
 * <p>Sealing is AES-256-GCM (JDK provider) with a fresh random 96-bit nonce per box and caller
 * supplied associated data that binds the box to its context (tenant, workspace, action id): a box
 * copied into another event does not open.
 *
 * <p>Immutable and thread-safe; a {@link Cipher} is created per call.
 */
public final class SecretsKeyring {
  /** The environment variable (and Micronaut property {@code stagecraft.secrets-keys}). */
  public static final String ENV = "STAGECRAFT_SECRETS_KEYS";

  private static final Pattern KID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final int KEY_BYTES = 32;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final SecretsKeyring NONE = new SecretsKeyring(new LinkedHashMap<>());

  private final Map<String, SecretKeySpec> keys; // insertion order; first seals

  private SecretsKeyring(Map<String, SecretKeySpec> keys) {
    this.keys = keys;
  }

  /** A keyring without keys: {@link #canSeal()} is false and every {@link #open} fails. */
  public static SecretsKeyring none() {
    return NONE;
  }

  /**
   * Parses {@code kid:base64key[,kid:base64key...]}; blank means {@link #none()}.
   *
   * @throws IllegalArgumentException naming the entry and what is wrong with it (never the key)
   */
  public static SecretsKeyring parse(String spec) {
    if (spec == null || spec.isBlank()) {
      return NONE;
    }
    Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
    String[] entries = spec.split(",", -1);
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i].strip();
      String where = ENV + " entry " + (i + 1);
      int colon = entry.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException(
            where + " is not 'kid:base64key'; expected e.g. k2:$(openssl rand -base64 32)");
      }
      String kid = entry.substring(0, colon).strip();
      if (!KID.matcher(kid).matches()) {
        throw new IllegalArgumentException(
            where + ": key id must be 1-64 characters of A-Z a-z 0-9 . _ -");
      }
      byte[] key;
      try {
        key = Base64.getDecoder().decode(entry.substring(colon + 1).strip());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            where + " (kid '" + kid + "'): the key is not valid base64");
      }
      if (key.length != KEY_BYTES) {
        throw new IllegalArgumentException(
            where
                + " (kid '"
                + kid
                + "'): the key must be 32 bytes (AES-256), got "
                + key.length
                + "; generate one with `openssl rand -base64 32`");
      }
      if (keys.put(kid, new SecretKeySpec(key, "AES")) != null) {
        throw new IllegalArgumentException(where + ": key id '" + kid + "' appears twice");
      }
    }
    return new SecretsKeyring(keys);
  }

  /** A fresh random key in the form {@link #parse} reads: {@code kid:base64key}. */
  public static String generateEntry(String kid) {
    if (!KID.matcher(kid).matches()) {
      throw new IllegalArgumentException("invalid key id: " + kid);
    }
    byte[] key = new byte[KEY_BYTES];
    RANDOM.nextBytes(key);
    return kid + ":" + Base64.getEncoder().encodeToString(key);
  }

  /** True when there is at least one key, so {@link #seal} works. */
  public boolean canSeal() {
    return !keys.isEmpty();
  }

  /** The key ids, sealing key first. */
  public List<String> keyIds() {
    return List.copyOf(keys.keySet());
  }

  /**
   * Seals {@code plaintext} with the first key.
   *
   * @param associatedData authenticated but not encrypted; the same bytes are needed to open
   * @throws IllegalStateException when the keyring is empty
   */
  public SealedBox seal(byte[] plaintext, byte[] associatedData) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    return sealWithNonce(sealingKey(), nonce, plaintext, associatedData);
  }

  private Map.Entry<String, SecretKeySpec> sealingKey() {
    if (!canSeal()) {
      throw new IllegalStateException("no secrets key configured (" + ENV + ")");
    }
    return keys.entrySet().iterator().next();
  }

  private static SealedBox sealWithNonce(
      Map.Entry<String, SecretKeySpec> key, byte[] nonce, byte[] plaintext, byte[] associatedData) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key.getValue(), new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(associatedData);
      byte[] sealed = cipher.doFinal(plaintext);
      Base64.Encoder b64 = Base64.getEncoder();
      return new SealedBox(
          SealedBox.ALG, key.getKey(), b64.encodeToString(nonce), b64.encodeToString(sealed));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JDK", e);
    }
  }

  /**
   * Seals {@code plaintext} with the first key, deterministically: the same plaintext and
   * associated data under the same key give the same box (docs/adr/0024). The GCM nonce is not
   * random but synthetic, SIV-style: the first 96 bits of {@code HMAC-SHA256(K_n, len(ad) || ad ||
   * plaintext)}, where {@code K_n = HMAC-SHA256(key, "dev.stagecraft.seal/siv-nonce/v1")} is a
   * nonce key derived from the sealing key. What this leaks, and only this: whether two values
   * sealed under the same key and context are equal. A nonce repeats only for an equal (context,
   * plaintext) pair, which then yields the same ciphertext; different plaintexts collide on a nonce
   * with the probability of random 96-bit nonces. {@link #open} opens both kinds of box.
   *
   * @throws IllegalStateException when the keyring is empty
   */
  public SealedBox sealDeterministic(byte[] plaintext, byte[] associatedData) {
    Map.Entry<String, SecretKeySpec> key = sealingKey();
    byte[] nonce =
        Arrays.copyOf(
            hmac(key.getValue(), "dev.stagecraft.seal/siv-nonce/v1", associatedData, plaintext),
            NONCE_BYTES);
    return sealWithNonce(key, nonce, plaintext, associatedData);
  }

  /**
   * A keyed digest of {@code data} for equality checks at rest (for example "is this the same
   * request as before"), so a stored digest of a request that holds secrets cannot be tested
   * against guesses without the key: {@code hmac-sha256:<kid>:<hex>} of {@code HMAC-SHA256(K_d,
   * len(context) || context || data)}, {@code K_d = HMAC-SHA256(key,
   * "dev.stagecraft.seal/digest/v1")} with the first key. Without a key it is {@code sha256:<hex>}
   * of the same input (and says so).
   */
  public String keyedDigest(byte[] data, byte[] context) {
    if (!canSeal()) {
      return "sha256:" + HexFormat.of().formatHex(sha256(context, data));
    }
    Map.Entry<String, SecretKeySpec> first = keys.entrySet().iterator().next();
    return "hmac-sha256:"
        + first.getKey()
        + ":"
        + HexFormat.of().formatHex(hmac(first.getValue(), DIGEST_LABEL, context, data));
  }

  /**
   * Whether {@code digest} (from {@link #keyedDigest}, with any key of this keyring, so rotation
   * keeps earlier digests comparable) is the digest of {@code data} in {@code context}. A digest
   * made with a key this keyring no longer has never matches.
   */
  public boolean matchesKeyedDigest(String digest, byte[] data, byte[] context) {
    if (digest == null) {
      return false;
    }
    byte[] expected;
    byte[] actual;
    if (digest.startsWith("sha256:")) {
      expected = sha256(context, data);
      actual = parseHex(digest.substring("sha256:".length()));
    } else if (digest.startsWith("hmac-sha256:")) {
      String rest = digest.substring("hmac-sha256:".length());
      int colon = rest.indexOf(':');
      SecretKeySpec key = colon < 0 ? null : keys.get(rest.substring(0, colon));
      if (key == null) {
        return false;
      }
      expected = hmac(key, DIGEST_LABEL, context, data);
      actual = parseHex(rest.substring(colon + 1));
    } else {
      return false;
    }
    return actual != null && MessageDigest.isEqual(expected, actual);
  }

  private static byte[] parseHex(String hex) {
    try {
      return HexFormat.of().parseHex(hex);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static byte[] lengthPrefix(byte[] context) {
    int n = context.length;
    return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
  }

  private static byte[] sha256(byte[] context, byte[] data) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(lengthPrefix(context));
      md.update(context);
      return md.digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }

  private static final String DIGEST_LABEL = "dev.stagecraft.seal/digest/v1";

  /**
   * {@code HMAC-SHA256(K_l, len(context) || context || data)} with {@code K_l = HMAC-SHA256(key,
   * label)}: a key of its own per use, derived from the sealing key.
   */
  private static byte[] hmac(SecretKeySpec key, String label, byte[] context, byte[] data) {
    try {
      Mac derive = Mac.getInstance("HmacSHA256");
      derive.init(new SecretKeySpec(key.getEncoded(), "HmacSHA256"));
      byte[] derived = derive.doFinal(label.getBytes(StandardCharsets.UTF_8));
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(derived, "HmacSHA256"));
      mac.update(lengthPrefix(context));
      mac.update(context);
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available in this JDK", e);
    }
  }

  /**
   * Opens a box sealed by {@link #seal} with any key of this keyring.
   *
   * @throws UnsealException when the algorithm or key id is unknown, the box is malformed, or the
   *     ciphertext or associated data do not authenticate (tampered, or sealed for another context)
   */
  public byte[] open(SealedBox box, byte[] associatedData) throws UnsealException {
    Objects.requireNonNull(box, "box");
    if (!SealedBox.ALG.equals(box.alg())) {
      throw new UnsealException(
          "sealed with unsupported algorithm '" + box.alg() + "' (expected " + SealedBox.ALG + ")");
    }
    SecretKeySpec key = box.kid() == null ? null : keys.get(box.kid());
    if (key == null) {
      throw new UnsealException(
          "sealed with key id '"
              + box.kid()
              + "', which is not in this service's "
              + ENV
              + (keys.isEmpty() ? " (none configured)" : " (has " + keys.keySet() + ")")
              + "; give every planner and executor the same keyring, keeping old keys while"
              + " events sealed with them can still arrive");
    }
    byte[] nonce;
    byte[] sealed;
    try {
      nonce = Base64.getDecoder().decode(box.nonce());
      sealed = Base64.getDecoder().decode(box.ciphertext());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new UnsealException("sealed box is malformed: nonce or ciphertext is not base64");
    }
    if (nonce.length != NONCE_BYTES || sealed.length < TAG_BITS / 8) {
      throw new UnsealException("sealed box is malformed: wrong nonce or ciphertext length");
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(associatedData);
      return cipher.doFinal(sealed);
    } catch (AEADBadTagException e) {
      throw new UnsealException(
          "sealed box does not authenticate with key '"
              + box.kid()
              + "': it was tampered with, or sealed for another tenant, workspace or action");
    } catch (GeneralSecurityException e) {
      throw new UnsealException("sealed box cannot be opened: " + e.getClass().getSimpleName());
    }
  }

  /**
   * Associated data from context parts: each part's UTF-8 length (4 bytes, big endian) then its
   * bytes, so {@code ("a/b","c")} and {@code ("a","b/c")} differ. Null parts count as empty.
   */
  public static byte[] associatedData(String... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String part : parts) {
      byte[] bytes = (part == null ? "" : part).getBytes(StandardCharsets.UTF_8);
      int n = bytes.length;
      out.write(n >>> 24);
      out.write(n >>> 16);
      out.write(n >>> 8);
      out.write(n);
      out.writeBytes(bytes);
    }
    return out.toByteArray();
  }

  @Override
  public String toString() {
    return "SecretsKeyring" + keys.keySet(); // ids only, never key material
  }
}
