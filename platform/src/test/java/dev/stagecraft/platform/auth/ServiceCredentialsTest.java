package dev.stagecraft.platform.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceCredentialsTest {
  private static final Map<ServiceRole, String> TOKENS =
      Map.of(
          ServiceRole.PLANNER, "planner-secret",
          ServiceRole.STATE, "state-secret",
          ServiceRole.OPERATOR, "operator-secret");

  @Test
  void tellsEachKnownRoleByItsTokenAndNoOtherToken() {
    ServiceCredentials state =
        ServiceCredentials.load(CredentialNeeds.STATE_SERVICE, TOKENS::get, Map.of());

    assertThat(state.roleOf("planner-secret")).contains(ServiceRole.PLANNER);
    assertThat(state.roleOf("operator-secret")).contains(ServiceRole.OPERATOR);
    assertThat(state.roleOf("state-secret")).contains(ServiceRole.STATE);
    assertThat(state.roleOf("planner-secret ")).isEmpty();
    assertThat(state.roleOf("planner")).isEmpty();
    assertThat(state.roleOf("")).isEmpty();
    assertThat(state.roleOf(null)).isEmpty();
    assertThat(state.ownToken()).isEqualTo("state-secret");
  }

  @Test
  void aRoleThisProcessWasNotGivenIsUnknownHere() {
    ServiceCredentials lock =
        ServiceCredentials.load(CredentialNeeds.LOCK_SERVICE, TOKENS::get, Map.of());

    assertThat(lock.roleOf("operator-secret")).isEmpty();
    assertThat(lock.knows(ServiceRole.OPERATOR)).isFalse();
    assertThat(lock.roleOf("state-secret")).contains(ServiceRole.STATE);
    assertThatThrownBy(lock::ownToken).hasMessageContaining("lock-service presents no");
  }

  @Test
  void refusesToStartWithoutARequiredTokenNamingItsVariable() {
    assertThatThrownBy(
            () ->
                ServiceCredentials.load(
                    CredentialNeeds.LOCK_SERVICE,
                    role -> role == ServiceRole.PLANNER ? "planner-secret" : " ",
                    Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lock-service cannot start")
        .hasMessageContaining("STAGECRAFT_SERVICE_TOKEN_STATE is not set")
        .hasMessageNotContaining("STAGECRAFT_SERVICE_TOKEN_PLANNER is not set")
        .hasMessageNotContaining("planner-secret");
  }

  @Test
  void theOperatorTokenIsOptionalForTheStateService() {
    ServiceCredentials state =
        ServiceCredentials.load(
            CredentialNeeds.STATE_SERVICE,
            role -> role == ServiceRole.OPERATOR ? null : TOKENS.get(role),
            Map.of());

    assertThat(state.knows(ServiceRole.OPERATOR)).isFalse();
    assertThat(state.roleOf("operator-secret")).isEmpty();
  }

  @Test
  void theRetiredSharedTokenStopsTheStartNamingTheNewVariables() {
    assertThatThrownBy(
            () ->
                ServiceCredentials.load(
                    CredentialNeeds.STATE_SERVICE,
                    role -> null,
                    Map.of("STAGECRAFT_SERVICE_TOKEN", "old-shared-secret")))
        .hasMessageContaining("STAGECRAFT_SERVICE_TOKEN is no longer read")
        .hasMessageContaining(
            "set STAGECRAFT_SERVICE_TOKEN_PLANNER, STAGECRAFT_SERVICE_TOKEN_STATE")
        .hasMessageContaining("STAGECRAFT_OPERATOR_TOKEN")
        .hasMessageNotContaining("old-shared-secret");
  }

  @Test
  void theRetiredSharedTokenIsRefusedEvenBesideTheNewOnes() {
    assertThatThrownBy(
            () ->
                ServiceCredentials.load(
                    CredentialNeeds.PLANNER_SERVICE,
                    TOKENS::get,
                    Map.of("STAGECRAFT_SERVICE_TOKEN", "old", "PATH", "/bin")))
        .hasMessageContaining("planner-service cannot start")
        .hasMessageContaining("STAGECRAFT_SERVICE_TOKEN is no longer read");
  }

  @Test
  void theExecutorRefusesEveryServiceTokenInItsEnvironment() {
    assertThatThrownBy(
            () ->
                ServiceCredentials.load(
                    CredentialNeeds.EXECUTOR_SERVICE,
                    role -> null,
                    Map.of(
                        "STAGECRAFT_SERVICE_TOKEN_PLANNER", "p",
                        "STAGECRAFT_OPERATOR_TOKEN", "o",
                        "STAGECRAFT_KAFKA", "k:9092")))
        .hasMessageContaining("STAGECRAFT_OPERATOR_TOKEN is set but executor-service holds no")
        .hasMessageContaining("STAGECRAFT_SERVICE_TOKEN_PLANNER is set but executor-service")
        .hasMessageNotContaining("STAGECRAFT_KAFKA");

    assertThat(
            ServiceCredentials.load(
                    CredentialNeeds.EXECUTOR_SERVICE, role -> null, Map.of("STAGECRAFT_KAFKA", "k"))
                .toString())
        .isEqualTo("executor-service presents no service token and knows the tokens of: none");
  }

  @Test
  void aServiceRefusesATokenOfARoleItNeitherPresentsNorAccepts() {
    assertThatThrownBy(
            () ->
                ServiceCredentials.load(
                    CredentialNeeds.LOCK_SERVICE,
                    TOKENS::get,
                    Map.of("STAGECRAFT_OPERATOR_TOKEN", "o", "STAGECRAFT_SERVICE_TOKEN_LOCK", "l")))
        .hasMessageContaining(
            "STAGECRAFT_OPERATOR_TOKEN is set but lock-service does not use it (it holds only"
                + " STAGECRAFT_SERVICE_TOKEN_PLANNER, STAGECRAFT_SERVICE_TOKEN_STATE)")
        .hasMessageContaining("STAGECRAFT_SERVICE_TOKEN_LOCK is set but lock-service");
  }

  @Test
  void twoRolesWithTheSameTokenAreRefusedSoNeitherPassesAsTheOther() {
    assertThatThrownBy(
            () ->
                ServiceCredentials.load(
                    CredentialNeeds.STATE_SERVICE,
                    role -> role == ServiceRole.STATE ? "same" : "same",
                    Map.of()))
        .hasMessageContaining(
            "STAGECRAFT_SERVICE_TOKEN_PLANNER and STAGECRAFT_SERVICE_TOKEN_STATE have the same"
                + " value")
        .hasMessageNotContaining("'same'");
  }

  @Test
  void describesItselfWithoutTokens() {
    ServiceCredentials state =
        ServiceCredentials.load(CredentialNeeds.STATE_SERVICE, TOKENS::get, Map.of());

    assertThat(state.toString())
        .isEqualTo("state-service presents state and knows the tokens of: planner, state, operator")
        .doesNotContain("secret");
  }

  @Test
  void credentialVariablesAreTheRetiredOneTheRolesAndAnyServiceTokenSuffix() {
    assertThat(ServiceCredentials.isCredentialVariable("STAGECRAFT_SERVICE_TOKEN")).isTrue();
    assertThat(ServiceCredentials.isCredentialVariable("STAGECRAFT_SERVICE_TOKEN_X")).isTrue();
    assertThat(ServiceCredentials.isCredentialVariable("STAGECRAFT_OPERATOR_TOKEN")).isTrue();
    assertThat(ServiceCredentials.isCredentialVariable("STAGECRAFT_TOKEN")).isFalse();
    assertThat(ServiceCredentials.isCredentialVariable("STAGECRAFT_SECRETS_KEYS")).isFalse();
  }
}
