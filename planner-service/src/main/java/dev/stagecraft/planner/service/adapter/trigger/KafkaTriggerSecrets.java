package dev.stagecraft.planner.service.adapter.trigger;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trigger secrets in the compacted topic {@code stagecraft.trigger-secrets}, key = tenant, each
 * secret sealed with the secrets keyring (AES-256-GCM, associated data {@code ("trigger-secret",
 * tenant)}, ADR 0008): the topic never holds one in clear, and a box copied to another tenant's
 * record does not open. A value holds the current secret and, until {@code previous_valid_until},
 * the one it replaced. Thread-safe; rotations of one instance are serialized.
 */
final class KafkaTriggerSecrets implements AutoCloseable, TriggerSecrets {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTriggerSecrets.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final CompactedTopicView view;
  private final SecretsKeyring keyring;
  private final Clock clock;
  private final Duration grace;

  KafkaTriggerSecrets(
      CompactedTopicView view, SecretsKeyring keyring, Clock clock, Duration grace) {
    this.view = view;
    this.keyring = keyring;
    this.clock = clock;
    this.grace = grace;
  }

  @Override
  public List<String> verifying(String tenant) {
    JsonNode record = read(tenant);
    if (record == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    open(tenant, record.get("current")).ifPresent(out::add);
    JsonNode until = record.get("previous_valid_until");
    if (until != null
        && !until.isNull()
        && clock.instant().isBefore(Instant.parse(until.asText()))) {
      open(tenant, record.get("previous")).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public synchronized Issued rotate(String tenant) {
    if (!keyring.canSeal()) {
      throw new IllegalStateException(
          "trigger secrets are stored only encrypted: configure "
              + SecretsKeyring.ENV
              + " (docs/operations.md)");
    }
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    String secret = "sct_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    Instant now = clock.instant();
    JsonNode old = read(tenant);
    Instant previousUntil = old == null ? null : now.plus(grace);
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("tenant", tenant);
    value.put("current", seal(tenant, secret));
    value.put("created_at", now.toString());
    value.put("previous", old == null ? null : old.get("current"));
    value.put("previous_valid_until", previousUntil == null ? null : previousUntil.toString());
    view.put(tenant, EventCodec.toJson(value).getBytes(StandardCharsets.UTF_8));
    return new Issued(tenant, secret, now, previousUntil);
  }

  private SealedBox seal(String tenant, String secret) {
    return keyring.seal(secret.getBytes(StandardCharsets.UTF_8), associatedData(tenant));
  }

  private Optional<String> open(String tenant, JsonNode box) {
    if (box == null || box.isNull()) {
      return Optional.empty();
    }
    try {
      SealedBox sealed = EventCodec.mapper().treeToValue(box, SealedBox.class);
      return Optional.of(
          new String(keyring.open(sealed, associatedData(tenant)), StandardCharsets.UTF_8));
    } catch (UnsealException | IOException e) {
      // e.g. its key was removed from the keyring: the secret is unusable, issue a new one
      LOG.warn("trigger secret of tenant {} cannot be opened: {}", tenant, e.getMessage());
      return Optional.empty();
    }
  }

  private JsonNode read(String tenant) {
    return view.get(tenant)
        .map(
            bytes -> {
              try {
                return EventCodec.mapper().readTree(bytes);
              } catch (IOException e) {
                throw new IllegalStateException("unreadable trigger secret record: " + e, e);
              }
            })
        .orElse(null);
  }

  private static byte[] associatedData(String tenant) {
    return SecretsKeyring.associatedData("trigger-secret", tenant);
  }

  @Override
  public void close() {
    view.close();
  }
}
