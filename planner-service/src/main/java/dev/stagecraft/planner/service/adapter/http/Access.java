package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;
import java.util.Set;

/**
 * The public API's roles: {@code reader} may only read (GET), {@code deployer} may also start,
 * approve, discard and cancel runs and upload configuration versions, {@code admin} may do
 * everything, including tokens and workspace settings. Tenant management needs an admin token of an
 * operator tenant ({@code STAGECRAFT_OPERATOR_TENANTS}).
 */
@Singleton
public final class Access {
  /** The least role an operation needs. */
  public enum Role {
    READER,
    DEPLOYER,
    ADMIN;

    /** Whether a token of {@code role} may do what needs this role. */
    public boolean grantedTo(String role) {
      return switch (this) {
        case READER -> true;
        case DEPLOYER -> "deployer".equals(role) || "admin".equals(role);
        case ADMIN -> "admin".equals(role);
      };
    }
  }

  /** The caller, or the response that refuses the request (401 or 403). */
  public sealed interface Decision {}

  /** The request may go on, as this principal. */
  public record Allowed(Principal principal) implements Decision {}

  /** The request is refused with this response. */
  public record Refused(HttpResponse<?> response) implements Decision {}

  private final ApiAuth auth;
  private final Set<String> operatorTenants;

  public Access(ApiAuth auth, @Value("${stagecraft.operator-tenants:dev}") String operatorTenants) {
    this.auth = auth;
    this.operatorTenants = Set.of(operatorTenants.split("\\s*,\\s*"));
  }

  /** Whether the caller has at least {@code role}. */
  public Decision require(HttpRequest<?> request, Role role, String what) {
    var principal = auth.principal(request);
    if (principal.isEmpty()) {
      return new Refused(ApiProblems.unauthorized());
    }
    if (!role.grantedTo(principal.get().role())) {
      return new Refused(
          ApiProblems.problem(
              HttpStatus.FORBIDDEN,
              "Forbidden",
              "A "
                  + principal.get().role()
                  + " token cannot "
                  + what
                  + "; use "
                  + (role == Role.ADMIN ? "an admin" : "a deployer or admin")
                  + " token."));
    }
    return new Allowed(principal.get());
  }

  /** Whether the caller holds an admin token of an operator tenant. */
  public Decision requireOperator(HttpRequest<?> request, String what) {
    Decision d = require(request, Role.ADMIN, what);
    if (d instanceof Allowed a && !operatorTenants.contains(a.principal().tenant())) {
      return new Refused(
          ApiProblems.problem(
              HttpStatus.FORBIDDEN,
              "Forbidden",
              "Only admins of an operator tenant may "
                  + what
                  + " (STAGECRAFT_OPERATOR_TENANTS); this token's tenant is not one."));
    }
    return d;
  }
}
