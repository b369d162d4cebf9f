package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.trigger.RunTrigger;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Refuses a trigger or a push (the push webhook) whose {@code Content-Length} is over {@value
 * RunTrigger#MAX_BODY_BYTES} bytes with 413 before its body is read (a chunked body is bounded by
 * the server's request limit, then refused by {@link RunTrigger} from its length, unread). The
 * webhook takes no API token, so anyone can send to it: nothing of an unsigned body may cost more
 * than its length.
 */
@ServerFilter({"/api/v1/hooks/run-requests", "/api/v1/hooks/push/**"})
public class TriggerBodyLimit {

  /** 413 for a declared length over the limit; null (carry on) otherwise. */
  @RequestFilter
  @Nullable
  public HttpResponse<?> refuseLargeBodies(HttpRequest<?> request) {
    long length = request.getContentLength();
    if (length <= RunTrigger.MAX_BODY_BYTES) {
      return null;
    }
    return ApiProblems.problem(
        HttpStatus.REQUEST_ENTITY_TOO_LARGE,
        "Trigger too large",
        RunTrigger.tooLarge(length).reason());
  }
}
