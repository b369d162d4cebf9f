package dev.stagecraft.servicekit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.platform.auth.CredentialNeeds;
import dev.stagecraft.platform.auth.ServiceCredentials;
import dev.stagecraft.platform.auth.ServiceRole;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServiceAuthTest {
  private static final Map<ServiceRole, String> TOKENS =
      Map.of(
          ServiceRole.PLANNER, "planner-s3cret",
          ServiceRole.STATE, "state-s3cret",
          ServiceRole.OPERATOR, "operator-s3cret");

  private final ServiceAuth stateService =
      new ServiceAuth(
          ServiceCredentials.load(CredentialNeeds.STATE_SERVICE, TOKENS::get, Map.of()));

  @Test
  void acceptsAnAcceptedRolesTokenAsABearerTokenInAnyCaseAndNamesTheRole() {
    assertThat(
            stateService.require(
                " bearer operator-s3cret ", Set.of(ServiceRole.PLANNER, ServiceRole.OPERATOR)))
        .isEqualTo(ServiceRole.OPERATOR);
    assertThat(stateService.require("Bearer planner-s3cret", Set.of(ServiceRole.PLANNER)))
        .isEqualTo(ServiceRole.PLANNER);
  }

  @Test
  void refusesAKnownRoleTheRouteDoesNotAcceptWith403NamingTheAcceptedRoles() {
    assertThatThrownBy(
            () -> stateService.require("Bearer operator-s3cret", Set.of(ServiceRole.PLANNER)))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(403);
              assertThat(p.detail())
                  .isEqualTo(
                      "the operator role may not call this internal route; it accepts the planner"
                          + " role (STAGECRAFT_SERVICE_TOKEN_PLANNER)")
                  .doesNotContain("s3cret");
            });
  }

  @Test
  void refusesAMissingWrongOrForeignTokenWith401NamingTheAcceptedRoles() {
    Set<ServiceRole> route = Set.of(ServiceRole.PLANNER, ServiceRole.OPERATOR);
    for (String header :
        new String[] {null, "Bearer other-s3cret", "Basic cGxhbm5lci1zM2NyZXQ=", "Bearer "}) {
      assertThatThrownBy(() -> stateService.require(header, route))
          .isInstanceOfSatisfying(
              Problem.class,
              p -> {
                assertThat(p.status()).isEqualTo(401);
                assertThat(p.detail())
                    .contains(
                        "with the token of a role it accepts: the planner, operator roles"
                            + " (STAGECRAFT_SERVICE_TOKEN_PLANNER, STAGECRAFT_OPERATOR_TOKEN)")
                    .doesNotContain("s3cret");
              });
    }
  }

  @Test
  void saysWhichAcceptedRoleThisServiceWasNotGiven() {
    ServiceAuth withoutOperator =
        new ServiceAuth(
            ServiceCredentials.load(
                CredentialNeeds.STATE_SERVICE,
                role -> role == ServiceRole.OPERATOR ? null : TOKENS.get(role),
                Map.of()));

    assertThatThrownBy(
            () ->
                withoutOperator.require(
                    "Bearer operator-s3cret", Set.of(ServiceRole.PLANNER, ServiceRole.OPERATOR)))
        .isInstanceOfSatisfying(
            Problem.class,
            p ->
                assertThat(p.detail())
                    .contains("state-service was not given STAGECRAFT_OPERATOR_TOKEN"));
  }

  @Test
  void bearerTakesTheTokenOfBearerHeadersOnly() {
    assertThat(ServiceAuth.bearer("Bearer  sc_abc ")).isEqualTo("sc_abc");
    assertThat(ServiceAuth.bearer("Basic abc")).isNull();
    assertThat(ServiceAuth.bearer(null)).isNull();
  }
}
