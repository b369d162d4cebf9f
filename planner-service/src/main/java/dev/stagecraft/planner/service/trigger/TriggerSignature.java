package dev.stagecraft.planner.service.trigger;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of a run trigger (ADR 0016): {@code sha256=} and the lowercase hex HMAC-SHA256,
 * keyed with the UTF-8 bytes of the tenant's trigger secret, of {@code <timestamp>.<raw body>},
 * where the timestamp is Unix seconds as sent in the {@value #TIMESTAMP_HEADER} header. The same
 * for the webhook (HTTP headers) and the trigger topic (Kafka record headers). Stateless and
 * thread-safe.
 */
public final class TriggerSignature {
  /** The header (HTTP or Kafka record) carrying {@code sha256=<hex>}. */
  public static final String SIGNATURE_HEADER = "stagecraft-signature";

  /** The header (HTTP or Kafka record) carrying the signing time in Unix seconds. */
  public static final String TIMESTAMP_HEADER = "stagecraft-timestamp";

  private static final String PREFIX = "sha256=";

  private TriggerSignature() {}

  /** The header value for {@code body} signed at {@code timestamp} with {@code secret}. */
  public static String sign(String secret, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return PREFIX + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }

  /** True when {@code header} is the signature of {@code body} at {@code timestamp}. */
  public static boolean matches(String secret, long timestamp, byte[] body, String header) {
    if (header == null) {
      return false;
    }
    // constant time, so the comparison does not tell an attacker how much of a guess was right
    return MessageDigest.isEqual(
        sign(secret, timestamp, body).getBytes(StandardCharsets.US_ASCII),
        header.trim().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
  }
}
