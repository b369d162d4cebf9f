package dev.stagecraft.executor.adapter;

import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * {@code /health} detail {@code sandbox}: whether {@code local-exec} commands run sandboxed ({@code
 * on}, with the limits in force), unsandboxed on the operator's request ({@code off}) or are
 * refused because the sandbox cannot be set up here ({@code unavailable}, with the reason). Always
 * UP: {@code remote-exec} and {@code file} steps run either way.
 */
@Singleton
final class SandboxHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
  private final ExecutorBootstrap bootstrap;

  SandboxHealthIndicator(ExecutorBootstrap bootstrap) {
    this.bootstrap = bootstrap;
  }

  @Override
  protected Map<String, Object> getHealthInformation() {
    // Micronaut reports UNKNOWN for an indicator that sets no status (it made /health UNKNOWN)
    healthStatus = HealthStatus.UP;
    return bootstrap.sandbox().health();
  }

  @Override
  protected String getName() {
    return "sandbox";
  }
}
