package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.run.WorkspaceStates.TaintChange;
import dev.stagecraft.planner.service.run.WorkspaceStates.TaintChanged;
import dev.stagecraft.planner.service.run.WorkspaceStates.TaintRefused;
import dev.stagecraft.planner.service.run.recovery.InstanceTainter;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Changes to a workspace's state made by hand: {@code POST /api/v1/workspaces/{ws}/taint} and
 * {@code .../untaint} with {@code {"address":"type.name[key]"}} (deployer and admin tokens). The
 * request waits while a run holds the workspace lock.
 */
@Controller("/api/v1/workspaces")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WorkspacesController {
  private final InstanceTainter tainter;
  private final ApiAuth auth;

  public WorkspacesController(InstanceTainter tainter, ApiAuth auth) {
    this.tainter = tainter;
    this.auth = auth;
  }

  /** The body of a taint or untaint request. */
  public record TaintBody(@Nullable String address) {}

  @Post("/{ws}/taint")
  public HttpResponse<?> taint(
      HttpRequest<?> request, @PathVariable String ws, @Body @Nullable TaintBody body) {
    return change(request, ws, body, true);
  }

  @Post("/{ws}/untaint")
  public HttpResponse<?> untaint(
      HttpRequest<?> request, @PathVariable String ws, @Body @Nullable TaintBody body) {
    return change(request, ws, body, false);
  }

  private HttpResponse<?> change(
      HttpRequest<?> request, String ws, TaintBody body, boolean tainted) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    if ("reader".equals(principal.get().role())) {
      return problem(
          HttpStatus.FORBIDDEN,
          "Forbidden",
          "A reader token cannot change state; use a deployer token.");
    }
    if (!ApiProblems.WORKSPACE.matcher(ws).matches()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid workspace",
          "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit; got "
              + ws
              + ".");
    }
    if (body == null || body.address() == null || body.address().isBlank()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "No address",
          "The request names no resource instance: send {\"address\": \"type.name\"}.");
    }
    String address = body.address().strip();
    TaintChange change;
    try {
      change =
          tainter.change(
              principal.get().tenant(),
              ws,
              address,
              tainted,
              principal.get().role() + "@" + principal.get().tenant());
    } catch (IllegalStateException e) {
      return problem(
          HttpStatus.SERVICE_UNAVAILABLE,
          "State not changed",
          "The state was not changed: " + e.getMessage() + ". Try again.");
    }
    return switch (change) {
      case TaintChanged changed -> {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("workspace", ws);
        out.put("address", address);
        out.put("tainted", tainted);
        out.put("serial", changed.serial());
        yield HttpResponse.ok(out);
      }
      case TaintRefused refused ->
          switch (refused.refusal()) {
            case INVALID_ADDRESS ->
                problem(HttpStatus.BAD_REQUEST, "Invalid address", refused.detail());
            case NO_SUCH_INSTANCE ->
                problem(
                    HttpStatus.NOT_FOUND,
                    "No such resource instance",
                    "No such resource instance: "
                        + address
                        + "\n\nThe state of workspace '"
                        + ws
                        + "' has no resource instance with that address. If its configuration"
                        + " was just added, apply it once to create the instance first.");
            case NOT_TAINTED ->
                problem(
                    HttpStatus.CONFLICT,
                    "Not tainted",
                    "Resource instance "
                        + address
                        + " is not currently tainted, and so it cannot be untainted.");
          };
    };
  }
}
