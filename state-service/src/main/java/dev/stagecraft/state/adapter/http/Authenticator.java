package dev.stagecraft.state.adapter.http;

import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.schemas.action.RunCredentialProof;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.servicekit.http.ServiceAuth;
import dev.stagecraft.state.adapter.db.RunCredentialStore;
import dev.stagecraft.state.adapter.db.TenantStore;
import dev.stagecraft.state.adapter.db.TenantStore.Principal;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Base64;
import java.util.Set;

/**
 * Checks {@code Authorization: Bearer ...} headers: a service role's token (the internal routes,
 * each accepting the roles named here; docs/internal-api.md "Service roles"), an API token, or a
 * run's state credential.
 */
@Singleton
public final class Authenticator {
  /**
   * Runs (openings, credentials, fencing, outcomes, taint), host keys and known hosts: only the
   * planner calls them.
   */
  public static final Set<ServiceRole> PLANNER = Set.of(ServiceRole.PLANNER);

  /**
   * Tenants and API tokens (create, list, mint, revoke) and the token check: the planner, whose
   * public tenant and token API is itself for admins, and operators (the dev stack's bootstrap
   * creates the dev tenant, and checks the token it kept, this way).
   */
  public static final Set<ServiceRole> TENANT_ADMINISTRATION =
      Set.of(ServiceRole.PLANNER, ServiceRole.OPERATOR);

  private final ServiceAuth service;
  private final TenantStore tenants;
  private final RunCredentialStore runCredentials;

  public Authenticator(
      ServiceAuth service, TenantStore tenants, RunCredentialStore runCredentials) {
    this.service = service;
    this.tenants = tenants;
    this.runCredentials = runCredentials;
  }

  /**
   * For {@code /internal/**}: the token of one of the {@code accepted} roles (401 none or unknown,
   * 403 another known role's).
   */
  public ServiceRole requireService(String authorization, Set<ServiceRole> accepted) {
    return service.require(authorization, accepted);
  }

  /**
   * For internal reads of one workspace's state: the planner's token, or a run's state credential
   * ({@code scr_...}, docs/adr/0013) that is active for exactly this tenant's workspace. Anything
   * else — a revoked or superseded credential, one of another workspace — is a 401.
   */
  public void requirePlannerOrRunCredential(String authorization, String tenant, String workspace)
      throws SQLException {
    String presented = ServiceAuth.bearer(authorization);
    if (presented != null && presented.startsWith(RunCredentialProof.PREFIX)) {
      if (runCredentials.activeRun(tenant, workspace, presented).isEmpty()) {
        throw Problem.unauthorized(
            "the run credential is not active for workspace '"
                + workspace
                + "': its run ended, lost the lock, or it belongs to another workspace");
      }
      return;
    }
    service.require(authorization, PLANNER);
  }

  /**
   * For writes a run makes itself (its root outputs, docs/adr/0064): a run's state credential that
   * is active for exactly this tenant's workspace; the service tokens are not accepted. A revoked
   * or superseded credential, one of another workspace, or no credential at all is a 401.
   *
   * @return the credential's run id
   */
  public String requireRunCredential(String authorization, String tenant, String workspace)
      throws SQLException {
    String presented = ServiceAuth.bearer(authorization);
    if (presented == null || !presented.startsWith(RunCredentialProof.PREFIX)) {
      throw Problem.unauthorized(
          "this route takes the run's state credential (scr_...) as bearer token");
    }
    return runCredentials
        .activeRun(tenant, workspace, presented)
        .orElseThrow(
            () ->
                Problem.unauthorized(
                    "the run credential is not active for workspace '"
                        + workspace
                        + "': its run ended, lost the lock, or it belongs to another workspace"));
  }

  /**
   * For the Terraform HTTP backend ({@code /tf/**}): HTTP basic auth whose password is an API token
   * (the user name is not checked; Terraform's {@code username}/{@code password} settings), or a
   * bearer token as for {@code /api/**}. A token verified in the last 15 s is believed without a
   * database round trip ({@link TenantStore#verifyCached}, ADR 0036): revoked through this
   * instance, it is refused at once; through another instance, within 15 s.
   */
  public Principal requireBackendToken(String authorization) throws SQLException {
    String token = ServiceAuth.bearer(authorization);
    if (token == null && authorization != null) {
      String value = authorization.trim();
      if (value.regionMatches(true, 0, "Basic ", 0, 6)) {
        try {
          String decoded =
              new String(
                  Base64.getDecoder().decode(value.substring(6).trim()), StandardCharsets.UTF_8);
          int colon = decoded.indexOf(':');
          token = colon < 0 ? null : decoded.substring(colon + 1);
        } catch (IllegalArgumentException e) {
          token = null;
        }
      }
    }
    return tenants
        .verifyCached(token)
        .orElseThrow(
            () ->
                Problem.unauthorized(
                    "send a valid API token as the password of HTTP basic auth (backend \"http\""
                        + " settings username = \"stagecraft\", password = the token, or"
                        + " TF_HTTP_PASSWORD); the token is unknown, revoked or missing"));
  }

  /**
   * For reading a workspace's root outputs ({@code GET /api/v1/workspaces/{ws}/outputs}, remote
   * state, docs/adr/0063): an API token of any role, or a run's active state credential of any
   * workspace of its tenant. Returns the tenant — always the credential's own, so another tenant's
   * workspace cannot even be named.
   */
  public String requireOutputsReader(String authorization) throws SQLException {
    String presented = ServiceAuth.bearer(authorization);
    if (presented != null && presented.startsWith(RunCredentialProof.PREFIX)) {
      return runCredentials
          .active(presented)
          .map(RunCredentialStore.ActiveCredential::tenant)
          .orElseThrow(
              () ->
                  Problem.unauthorized(
                      "the run credential is not active: its run ended or lost the lock"));
    }
    return requireApiToken(authorization).tenant();
  }

  /** A principal allowed to change state and locks (admin or deployer), else 403. */
  public static Principal requireWriter(Principal principal) {
    if (!principal.mayWrite()) {
      throw new Problem(
          403,
          "Forbidden",
          "the token's role '"
              + principal.role()
              + "' may only read; use a deployer or admin token to change state or locks");
    }
    return principal;
  }

  /**
   * For {@code /api/**}: a valid, unrevoked API token; its tenant is the only one visible. Checked
   * as {@link #requireBackendToken} checks it (remembered for 15 s, ADR 0036).
   */
  public Principal requireApiToken(String authorization) throws SQLException {
    return tenants
        .verifyCached(ServiceAuth.bearer(authorization))
        .orElseThrow(
            () ->
                Problem.unauthorized(
                    "send a valid API token as 'Authorization: Bearer sc_...'; ask an admin for"
                        + " one if you have none"));
  }
}
