package dev.stagecraft.planner.service.console;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.http.Access;
import dev.stagecraft.planner.service.adapter.http.ApiAuth;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.cookie.Cookie;
import io.micronaut.http.cookie.SameSite;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * Who a console request comes from: its session cookie, the session's API token verified again
 * exactly as the API verifies a bearer token ({@link ApiAuth}; a revoked token ends the session),
 * and the request the console hands to the API's controllers on the caller's behalf (the same token
 * as a bearer, so {@link Access} decides and run commands are forwarded as the API's are), and the
 * check every console form POST passes first ({@link #onForm}: a session, then its CSRF token).
 * Stateless apart from the session store; thread-safe.
 */
@Singleton
public final class ConsoleAuth {
  /** The session cookie's name. */
  public static final String COOKIE = "stagecraft_console";

  /** The form field every console POST carries. */
  public static final String CSRF_FIELD = "_csrf";

  /** A signed-in caller: the session and who its token belongs to now. */
  public record Caller(ConsoleSessions.Session session, Principal principal) {
    /** Whether this caller's role may do what needs {@code role}, exactly as the API decides. */
    public boolean may(Access.Role role) {
      return role.grantedTo(principal.role());
    }

    /** {@code method path} as the API would receive it from this caller (bearer token). */
    public MutableHttpRequest<?> asApiRequest(
        HttpRequest<?> original, HttpMethod method, String path) {
      MutableHttpRequest<?> r = HttpRequest.create(method, path).bearerAuth(session.token());
      original.getHeaders().getFirst("Host").ifPresent(h -> r.header("Host", h));
      return r;
    }
  }

  private final ConsoleSessions sessions;
  private final ApiAuth auth;

  public ConsoleAuth(ConsoleSessions sessions, ApiAuth auth) {
    this.sessions = sessions;
    this.auth = auth;
  }

  /** The caller of {@code request}; empty when it has no live session (sign in). */
  public Optional<Caller> caller(HttpRequest<?> request) {
    Optional<ConsoleSessions.Session> session =
        request.getCookies().findCookie(COOKIE).map(Cookie::getValue).flatMap(sessions::find);
    if (session.isEmpty()) {
      return Optional.empty();
    }
    Optional<Principal> principal = auth.principalOf(session.get().token());
    if (principal.isEmpty()) {
      sessions.end(session.get()); // the token was revoked (or its tenant deleted)
      return Optional.empty();
    }
    return Optional.of(new Caller(session.get(), principal.get()));
  }

  /** What a console form does once its caller and CSRF token are known good. */
  public interface FormAction {
    HttpResponse<?> take(Caller caller, Map<String, String> form) throws Exception;
  }

  /**
   * A console form POST: 401 without a live session, 403 (a page saying why) when the form does not
   * carry the session's CSRF token — both before anything is asked of the API — else what {@code
   * action} answers for the caller and the form's fields (an empty map for no body).
   */
  public HttpResponse<?> onForm(
      HttpRequest<?> request,
      Map<String, String> form,
      ConsoleTemplates templates,
      FormAction action)
      throws Exception {
    Optional<Caller> caller = caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.unauthorized();
    }
    Map<String, String> fields = form == null ? Map.of() : form;
    if (!caller.get().session().csrfMatches(fields.get(CSRF_FIELD))) {
      return ConsoleSignInController.forbiddenWithoutCsrf(templates, caller.get());
    }
    return action.take(caller.get(), fields);
  }

  /** Exchanges an API token for a session; empty when the token does not verify. */
  public Optional<ConsoleSessions.Started> signIn(String token) {
    if (token == null || token.isBlank()) {
      return Optional.empty();
    }
    return auth.principalOf(token.strip())
        .map(p -> sessions.start(p.tenant(), p.role(), token.strip()));
  }

  /** Whether sessions can be started (the secrets keyring can seal). */
  public boolean available() {
    return sessions.available();
  }

  /** Ends the caller's session. */
  public void signOut(Caller caller) {
    sessions.end(caller.session());
  }

  /** The session cookie: HttpOnly, SameSite=Strict, Secure over TLS, scoped to the console. */
  public static Cookie sessionCookie(HttpRequest<?> request, String id) {
    return Cookie.of(COOKIE, id)
        .path("/console")
        .httpOnly(true)
        .sameSite(SameSite.Strict)
        .secure(request.isSecure())
        .maxAge(ConsoleSessions.LIFETIME);
  }

  /** A cookie that removes the session cookie. */
  public static Cookie clearedCookie(HttpRequest<?> request) {
    return Cookie.of(COOKIE, "")
        .path("/console")
        .httpOnly(true)
        .sameSite(SameSite.Strict)
        .secure(request.isSecure())
        .maxAge(0);
  }

  /**
   * Whether a sign-in was sent by another site's page (login CSRF: a page that signs the visitor in
   * with the attacker's token, so what the visitor then does lands in the attacker's tenant).
   * Browsers say so in {@code Sec-Fetch-Site}; older ones send an {@code Origin} whose host is not
   * the one asked. A request with neither (a script, curl) is not a browser's cross-site form.
   */
  public static boolean crossSite(String secFetchSite, String origin, String host) {
    if (secFetchSite != null) {
      return !secFetchSite.equals("same-origin") && !secFetchSite.equals("none");
    }
    if (origin == null || origin.equals("null")) {
      return origin != null; // "null": an opaque origin (a sandboxed frame, a data: page)
    }
    try {
      String authority = URI.create(origin).getRawAuthority();
      return authority == null || host == null || !authority.equalsIgnoreCase(host);
    } catch (IllegalArgumentException e) {
      return true;
    }
  }

  /** {@link #crossSite(String, String, String)} of {@code request}. */
  public static boolean crossSite(HttpRequest<?> request) {
    return crossSite(
        request.getHeaders().get("Sec-Fetch-Site"),
        request.getHeaders().get("Origin"),
        request.getHeaders().get("Host"));
  }
}
