package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.source.PushHook;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The push webhook of GitHub, GitLab and Gitea ({@code POST /api/v1/hooks/push/{tenant}},
 * docs/workspaces.md): no API token, authenticated by the forge's signature with the tenant's
 * trigger secret ({@link PushHook}). The body is bounded before it is read ({@link
 * TriggerBodyLimit}).
 */
@Controller("/api/v1/hooks")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PushHooksController {
  private final PushHook hook;

  public PushHooksController(PushHook hook) {
    this.hook = hook;
  }

  /**
   * 202 {@code {"delivery","runs":[{"workspace","run","replayed"}],"skipped":[{"workspace",
   * "reason"}]}} for a push; 200 {@code {"ignored": "..."}} for a ping, another event, a tag push
   * or a deleted branch; 401 when the signature is missing or wrong (nothing changes); 400 when a
   * signed payload is not a push; 413 over 1 MiB.
   */
  @Post("/push/{tenant}")
  @Consumes({MediaType.APPLICATION_JSON, MediaType.ALL})
  public HttpResponse<?> push(
      HttpRequest<?> request, @PathVariable String tenant, @Body @Nullable byte[] body) {
    PushHook.Answer answer =
        hook.handle(
            tenant, name -> request.getHeaders().get(name), body == null ? new byte[0] : body);
    return switch (answer) {
      case PushHook.Unauthorized u ->
          ApiProblems.problem(HttpStatus.UNAUTHORIZED, "Unauthorized", u.reason());
      case PushHook.Invalid i ->
          ApiProblems.problem(HttpStatus.BAD_REQUEST, "Invalid push", i.reason());
      case PushHook.TooLarge t ->
          ApiProblems.problem(HttpStatus.REQUEST_ENTITY_TOO_LARGE, "Push too large", t.reason());
      case PushHook.Ignored i -> HttpResponse.ok(Map.of("ignored", i.reason()));
      case PushHook.Handled h -> HttpResponse.accepted().body(handled(h));
    };
  }

  private static Map<String, Object> handled(PushHook.Handled h) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("delivery", h.delivery());
    List<Map<String, Object>> runs =
        h.runs().stream()
            .map(
                r -> {
                  Map<String, Object> m = new LinkedHashMap<>();
                  m.put("workspace", r.workspace());
                  m.put("run", r.run());
                  m.put("replayed", r.replayed());
                  return m;
                })
            .toList();
    out.put("runs", runs);
    out.put(
        "skipped",
        h.skipped().stream()
            .map(s -> Map.<String, Object>of("workspace", s.workspace(), "reason", s.reason()))
            .toList());
    return out;
  }
}
