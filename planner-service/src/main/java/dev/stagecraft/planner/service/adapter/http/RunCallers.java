package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import java.util.Optional;

/** Who may call the run endpoints that change a run (start, approve, discard, cancel). */
final class RunCallers {
  private RunCallers() {}

  /** The caller of a write endpoint: its principal, or else the response refusing it. */
  record WriteAccess(Principal principal, HttpResponse<String> refusal) {}

  /**
   * 401 without a valid token; 403 for a reader token ("A reader token cannot {@code verb} runs");
   * else the caller's principal.
   */
  static WriteAccess writer(ApiAuth auth, HttpRequest<?> request, String verb) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return new WriteAccess(null, ApiProblems.unauthorized());
    }
    if ("reader".equals(principal.get().role())) {
      return new WriteAccess(
          null,
          problem(
              HttpStatus.FORBIDDEN,
              "Forbidden",
              "A reader token cannot " + verb + " runs; use a deployer token."));
    }
    return new WriteAccess(principal.get(), null);
  }

  /** How a caller is named in the records of what it did: {@code role@tenant}. */
  static String name(Principal principal) {
    return principal.role() + "@" + principal.tenant();
  }
}
