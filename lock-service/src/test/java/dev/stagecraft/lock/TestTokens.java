package dev.stagecraft.lock;

import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.servicekit.http.ServiceAuth;
import java.util.Map;

/** The role tokens the lock-service tests configure and present (docs/internal-api.md). */
final class TestTokens {
  static final String PLANNER = "test-planner-token";
  static final String STATE = "test-state-token";

  private TestTokens() {}

  /** The properties that give a lock service the tokens it accepts. */
  static Map<String, Object> properties() {
    return Map.of(
        ServiceAuth.property(ServiceRole.PLANNER), PLANNER,
        ServiceAuth.property(ServiceRole.STATE), STATE);
  }
}
