package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.platform.secrets.SecretsSetting;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * {@code /health} detail {@code secrets}: whether dispatched actions are sealed and with which key
 * ids. Always UP: a missing keyring is a configuration choice, refused at start-up when {@code
 * STAGECRAFT_SECRETS_REQUIRED=true}.
 */
@Singleton
final class SecretsHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final SecretsKeyring keyring;

  SecretsHealthIndicator(SecretsKeyring keyring) {
    this.keyring = keyring;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    // Micronaut reports UNKNOWN for an indicator that sets no status (it made /health UNKNOWN)
    healthStatus = HealthStatus.UP;
    return SecretsSetting.healthDetail(keyring);
  }

  @Override
  protected String getName() {
    return "secrets";
  }
}
