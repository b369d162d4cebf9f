package dev.stagecraft.executor.adapter;

import dev.stagecraft.platform.secrets.SecretsSetting;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * {@code /health} detail {@code secrets}: whether this executor can open sealed dispatches and with
 * which key ids. Always UP: a missing keyring is refused at start-up only when {@code
 * STAGECRAFT_SECRETS_REQUIRED=true}.
 */
@Singleton
final class SecretsHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final ExecutorBootstrap bootstrap;

  SecretsHealthIndicator(ExecutorBootstrap bootstrap) {
    this.bootstrap = bootstrap;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    // Micronaut reports UNKNOWN for an indicator that sets no status (it made /health UNKNOWN)
    healthStatus = HealthStatus.UP;
    return SecretsSetting.healthDetail(bootstrap.secrets());
  }

  @Override
  protected String getName() {
    return "secrets";
  }
}
