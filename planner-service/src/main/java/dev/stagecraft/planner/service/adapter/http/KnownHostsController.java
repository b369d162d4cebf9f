package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.HttpKnownHosts;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.servicekit.http.InternalHttp;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Optional;

/**
 * The tenant's SSH host key trust (ADR "Host key trust"), for {@code stagecraft known-hosts}:
 *
 * <ul>
 *   <li>{@code GET /api/v1/known-hosts[?workspace=W]}: the tenant's known hosts, with {@code
 *       workspace} also the keys trusted on first use in W;
 *   <li>{@code POST /api/v1/known-hosts} {@code {"host","port","publicKey"}}: add a known host
 *       (201; 200 when the key was known already);
 *   <li>{@code DELETE /api/v1/known-hosts?host=H&port=P[&workspace=W]}: stop trusting the known
 *       hosts of H:P, or with {@code workspace} the key W trusted on first use for H:P (the next
 *       run trusts the host's key on first use again). Answers {@code {"removed":[...]}}.
 * </ul>
 *
 * The tenant comes from the API token only; changes need a deployer or admin token. The state
 * service validates host, port and key; its 400s are passed through.
 */
@Controller("/api/v1/known-hosts")
@ExecuteOn(TaskExecutors.BLOCKING)
public class KnownHostsController {
  private final HttpKnownHosts keys;
  private final ApiAuth auth;

  public KnownHostsController(HttpKnownHosts keys, ApiAuth auth) {
    this.keys = keys;
    this.auth = auth;
  }

  /** The body of an add request. */
  public record AddBody(
      @Nullable String host, @Nullable Integer port, @Nullable String publicKey) {}

  @Get
  public HttpResponse<?> list(HttpRequest<?> request, @QueryValue @Nullable String workspace) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    HttpResponse<?> invalid = checkWorkspace(workspace);
    if (invalid != null) {
      return invalid;
    }
    return pass(keys.list(principal.get().tenant(), workspace));
  }

  @Post
  public HttpResponse<?> add(HttpRequest<?> request, @Body @Nullable AddBody body) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    if ("reader".equals(principal.get().role())) {
      return forbidden();
    }
    if (body == null || body.host() == null || body.publicKey() == null) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Incomplete known host",
          "Send {\"host\": \"web.example\", \"port\": 22, \"publicKey\": \"ssh-ed25519 AAAA...\"}"
              + " (port defaults to 22).");
    }
    HttpResponse<?> outOfRange = RequestRanges.PORT.check(body.port());
    if (outOfRange != null) {
      return outOfRange;
    }
    return pass(
        keys.add(
            principal.get().tenant(),
            body.host(),
            body.port(),
            body.publicKey(),
            actor(principal.get())));
  }

  @Delete
  public HttpResponse<?> remove(
      HttpRequest<?> request,
      @QueryValue @Nullable String host,
      @QueryValue @Nullable Integer port,
      @QueryValue @Nullable String workspace) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    if ("reader".equals(principal.get().role())) {
      return forbidden();
    }
    if (host == null || host.isBlank()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "No host",
          "Name the host whose keys to remove: ?host=web.example&port=22 (port defaults to 22).");
    }
    HttpResponse<?> invalid =
        RequestRanges.first(checkWorkspace(workspace), RequestRanges.PORT.check(port));
    if (invalid != null) {
      return invalid;
    }
    return pass(
        keys.remove(
            principal.get().tenant(),
            workspace,
            host,
            port == null ? 22 : port,
            actor(principal.get())));
  }

  private static String actor(Principal principal) {
    return principal.role() + "@" + principal.tenant();
  }

  private static HttpResponse<?> checkWorkspace(String workspace) {
    if (workspace != null && !ApiProblems.WORKSPACE.matcher(workspace).matches()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid workspace",
          "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit; got "
              + workspace
              + ".");
    }
    return null;
  }

  private static HttpResponse<?> forbidden() {
    return problem(
        HttpStatus.FORBIDDEN,
        "Forbidden",
        "A reader token cannot change the known hosts; use a deployer or admin token.");
  }

  /** The state service's answer as it came: its status, its JSON or problem+json body. */
  private static HttpResponse<?> pass(InternalHttp.Response answer) {
    if (answer.status() >= 500) {
      return problem(
          HttpStatus.SERVICE_UNAVAILABLE,
          "Known hosts unavailable",
          "The state service answered " + answer.status() + ". Try again.");
    }
    MediaType type =
        answer.status() >= 400
            ? MediaType.of("application/problem+json")
            : MediaType.APPLICATION_JSON_TYPE;
    return HttpResponse.status(HttpStatus.valueOf(answer.status()))
        .contentType(type)
        .body(answer.body());
  }
}
