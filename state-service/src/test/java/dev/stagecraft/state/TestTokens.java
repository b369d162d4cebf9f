package dev.stagecraft.state;

import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.servicekit.http.ServiceAuth;
import java.util.Map;

/** The role tokens the state-service tests configure and present (docs/internal-api.md). */
final class TestTokens {
  static final String PLANNER = "test-planner-token";
  static final String STATE = "test-state-token";
  static final String OPERATOR = "test-operator-token";

  private TestTokens() {}

  /** The properties that give a state service its own token and those it accepts. */
  static Map<String, Object> properties() {
    return Map.of(
        ServiceAuth.property(ServiceRole.PLANNER), PLANNER,
        ServiceAuth.property(ServiceRole.STATE), STATE,
        ServiceAuth.property(ServiceRole.OPERATOR), OPERATOR);
  }
}
