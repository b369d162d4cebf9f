package dev.stagecraft.platform.secrets;

import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the secrets keyring a service is configured with ({@code STAGECRAFT_SECRETS_KEYS}) and
 * applies the policy for a missing one: with {@code STAGECRAFT_SECRETS_REQUIRED=true} the service
 * refuses to start; otherwise it starts, logs a warning and reports {@code sealing: off} on {@code
 * /health}. Planners then publish provisioners in clear, executors cannot run sealed dispatches.
 */
public final class SecretsSetting {
  private static final Logger LOG = LoggerFactory.getLogger(SecretsSetting.class);

  private SecretsSetting() {}

  /**
   * @param spec the value of {@code STAGECRAFT_SECRETS_KEYS}, may be blank
   * @param required {@code STAGECRAFT_SECRETS_REQUIRED}
   * @param service for messages, e.g. {@code planner}
   * @throws IllegalStateException when the spec is malformed or a required keyring is missing; the
   *     message says what to set and never shows key material
   */
  public static SecretsKeyring keyring(String spec, boolean required, String service) {
    SecretsKeyring keyring;
    try {
      keyring = SecretsKeyring.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage());
    }
    if (!keyring.canSeal()) {
      if (required) {
        throw new IllegalStateException(
            SecretsKeyring.ENV
                + " is empty but STAGECRAFT_SECRETS_REQUIRED=true: set it to kid:base64key"
                + " (e.g. k1:$(openssl rand -base64 32)), the same keyring on every planner and"
                + " executor; see docs/operations.md");
      }
      LOG.warn(
          "*** {} has no {}: provisioners and sensitive values of dispatched actions travel IN"
              + " CLEAR on Kafka. Set it (see docs/operations.md) outside development. ***",
          service,
          SecretsKeyring.ENV);
    } else {
      LOG.info(
          "{}: secrets keyring loaded; key id {} seals, key ids {} open",
          service,
          keyring.keyIds().getFirst(),
          keyring.keyIds());
    }
    return keyring;
  }

  /** The {@code /health} detail: whether sealing is on and the key ids (never keys). */
  public static Map<String, Object> healthDetail(SecretsKeyring keyring) {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("sealing", keyring.canSeal() ? "on" : "off");
    if (keyring.canSeal()) {
      detail.put("sealingKeyId", keyring.keyIds().getFirst());
      detail.put("keyIds", keyring.keyIds());
    } else {
      detail.put(
          "warning",
          SecretsKeyring.ENV + " is not set: secrets of dispatched actions are not sealed");
    }
    return detail;
  }
}
