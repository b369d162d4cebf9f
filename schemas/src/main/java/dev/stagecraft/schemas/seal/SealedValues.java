package dev.stagecraft.schemas.seal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Sealed attribute values (docs/adr/0024): a sensitive value inside a resource's attributes is
 * replaced by one JSON string, {@code stagecraft:sealed:v1:<kid>:<base64url(nonce ‖ ciphertext ‖
 * tag)>}, so the attributes stay valid JSON in events and in the Terraform v4 state. The plaintext
 * is the value's canonical JSON (sorted keys, numbers without trailing zeros), so the original type
 * (string, number, bool, list, map) comes back when it is opened.
 *
 * <p>Sealing is deterministic ({@link SecretsKeyring#sealDeterministic}): the same value in the
 * same context under the same key gives the same string, so comparing two sealed states shows no
 * false change. The context (associated data) binds tenant, workspace, instance address and the
 * attribute path: a sealed value copied to another attribute, instance, workspace or tenant does
 * not open.
 *
 * <p>Stateless and thread-safe.
 */
public final class SealedValues {
  /** Every sealed value starts with this. */
  public static final String PREFIX = "stagecraft:sealed:v1:";

  private static final String CONTEXT = "dev.stagecraft.attribute/sealed/v1";
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .configure(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN, true);

  private SealedValues() {}

  /** True for a string in the sealed form (it may still fail to open). */
  public static boolean isSealed(Object value) {
    return value instanceof String s && s.startsWith(PREFIX);
  }

  /**
   * The associated data of one attribute value: tenant, workspace, instance address and the path
   * inside the instance's attributes (attribute name, then map keys and list indexes).
   */
  public static byte[] context(String tenant, String workspace, String address, List<?> path) {
    List<String> parts = new ArrayList<>(List.of(CONTEXT, tenant, workspace, address));
    for (Object step : path) {
      parts.add((step instanceof Number ? "#" : ".") + step);
    }
    return SecretsKeyring.associatedData(parts.toArray(String[]::new));
  }

  /**
   * Seals a JSON-like value (String, Number, Boolean, null, List, Map) with the keyring's first
   * key.
   *
   * @throws IllegalStateException when the keyring has no key
   */
  public static String seal(SecretsKeyring keyring, Object value, byte[] context) {
    byte[] plaintext;
    try {
      plaintext = MAPPER.writeValueAsBytes(canonical(value));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("value cannot be written as JSON", e);
    }
    SealedBox box = keyring.sealDeterministic(plaintext, context);
    Base64.Decoder dec = Base64.getDecoder();
    byte[] nonce = dec.decode(box.nonce());
    byte[] sealed = dec.decode(box.ciphertext());
    byte[] both = new byte[nonce.length + sealed.length];
    System.arraycopy(nonce, 0, both, 0, nonce.length);
    System.arraycopy(sealed, 0, both, nonce.length, sealed.length);
    return PREFIX + box.kid() + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(both);
  }

  /** The key id a sealed value names, or null when it is not in the sealed form. */
  public static String kidOf(String sealed) {
    if (!isSealed(sealed)) {
      return null;
    }
    int colon = sealed.indexOf(':', PREFIX.length());
    return colon < 0 ? null : sealed.substring(PREFIX.length(), colon);
  }

  /**
   * Opens a sealed value with any key of the keyring.
   *
   * @return the value as Jackson reads JSON (String, Integer/Long/Double, Boolean, null, List, Map)
   * @throws UnsealException naming the key id when it is not in the keyring, or saying that the
   *     value is malformed or does not authenticate in this context
   */
  public static Object open(SecretsKeyring keyring, String sealed, byte[] context)
      throws UnsealException {
    String kid = kidOf(sealed);
    if (kid == null) {
      throw new UnsealException("not a sealed value (expected " + PREFIX + "<kid>:<base64>)");
    }
    byte[] both;
    try {
      both = Base64.getUrlDecoder().decode(sealed.substring(PREFIX.length() + kid.length() + 1));
    } catch (IllegalArgumentException e) {
      throw new UnsealException("sealed value is malformed: the payload is not base64url");
    }
    if (both.length < 12 + 16) {
      throw new UnsealException("sealed value is malformed: too short");
    }
    Base64.Encoder enc = Base64.getEncoder();
    SealedBox box =
        new SealedBox(
            SealedBox.ALG,
            kid,
            enc.encodeToString(Arrays.copyOfRange(both, 0, 12)),
            enc.encodeToString(Arrays.copyOfRange(both, 12, both.length)));
    byte[] plaintext = keyring.open(box, context);
    try {
      return MAPPER.readValue(new String(plaintext, StandardCharsets.UTF_8), Object.class);
    } catch (JsonProcessingException e) {
      throw new UnsealException("sealed value does not hold JSON");
    }
  }

  /** Sorted maps and numbers without trailing zeros, so equal values give equal bytes. */
  private static Object canonical(Object value) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new TreeMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), canonical(v)));
      return out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(v -> out.add(canonical(v)));
      return out;
    }
    if (value instanceof Number n) {
      BigDecimal d = new BigDecimal(n.toString()).stripTrailingZeros();
      return d.scale() < 0 ? d.setScale(0) : d;
    }
    return value;
  }
}
