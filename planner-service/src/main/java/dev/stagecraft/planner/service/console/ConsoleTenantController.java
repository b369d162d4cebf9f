package dev.stagecraft.planner.service.console;

import static dev.stagecraft.planner.service.console.ConsoleRunsController.encoded;
import static dev.stagecraft.planner.service.console.ConsoleSignInController.chrome;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.http.Access;
import dev.stagecraft.planner.service.adapter.http.RunTriggersController;
import dev.stagecraft.planner.service.adapter.http.TokensController;
import dev.stagecraft.planner.service.console.PageModels.TenantPage;
import dev.stagecraft.planner.service.console.PageModels.TokenRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Hidden;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's tenant page: the tenant's API tokens (create, shown once, and revoke), a new
 * trigger secret (shown once), and the webhook and chat-ops endpoints with curl examples. Each
 * action is the API's own controller called with the session's token ({@link TokensController},
 * {@link RunTriggersController}), so only an admin may list, create, revoke or rotate.
 */
@Hidden // pages for people, not part of the public API's OpenAPI document
@Controller("/console/tenant")
@Produces(MediaType.TEXT_HTML)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ConsoleTenantController {
  private final ConsoleAuth auth;
  private final ConsoleTemplates templates;
  private final TokensController tokens;
  private final RunTriggersController triggers;

  public ConsoleTenantController(
      ConsoleAuth auth,
      ConsoleTemplates templates,
      TokensController tokens,
      RunTriggersController triggers) {
    this.auth = auth;
    this.templates = templates;
    this.tokens = tokens;
    this.triggers = triggers;
  }

  @Get
  public HttpResponse<?> tenant(HttpRequest<?> request) {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isEmpty()) {
      return HttpResponse.seeOther(URI.create("/console/sign-in"));
    }
    return page(request, caller.get(), HttpStatus.OK, null, null, null);
  }

  /** Creates a token through the API and shows it, this once. */
  @Post("/tokens")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> createToken(
      HttpRequest<?> request, @Nullable @Body Map<String, String> form) throws Exception {
    return act(
        request,
        form,
        (caller, f) -> {
          HttpResponse<?> answer =
              tokens.create(
                  caller.asApiRequest(request, HttpMethod.POST, "/api/v1/tokens"),
                  new TokensController.TokenBody(f.get("role"), blankToNull(f.get("description"))));
          return shownOnce(request, caller, answer, "token", "New token", "create the token");
        });
  }

  @Post("/tokens/{id}/revoke")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> revoke(
      HttpRequest<?> request, @PathVariable String id, @Nullable @Body Map<String, String> form)
      throws Exception {
    return act(
        request,
        form,
        (caller, f) -> {
          HttpResponse<?> answer =
              tokens.revoke(
                  caller.asApiRequest(
                      request, HttpMethod.POST, "/api/v1/tokens/" + encoded(id) + "/revoke"),
                  id);
          if (ApiAnswers.refused(answer)) {
            return page(
                request,
                caller,
                HttpStatus.valueOf(answer.code()),
                null,
                null,
                "Could not revoke the token: " + ApiAnswers.detail(answer));
          }
          return HttpResponse.seeOther(URI.create("/console/tenant"));
        });
  }

  /** Issues a new trigger secret through the API and shows it, this once. */
  @Post("/trigger-secret")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> rotateSecret(
      HttpRequest<?> request, @Nullable @Body Map<String, String> form) throws Exception {
    return act(
        request,
        form,
        (caller, f) -> {
          HttpResponse<?> answer =
              triggers.rotateSecret(
                  caller.asApiRequest(request, HttpMethod.POST, "/api/v1/hooks/secret"));
          return shownOnce(
              request, caller, answer, "secret", "New trigger secret", "issue a trigger secret");
        });
  }

  private HttpResponse<?> act(
      HttpRequest<?> request, Map<String, String> form, ConsoleAuth.FormAction action)
      throws Exception {
    return auth.onForm(request, form, templates, action);
  }

  private HttpResponse<?> shownOnce(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      HttpResponse<?> answer,
      String field,
      String label,
      String what) {
    if (ApiAnswers.refused(answer)) {
      return page(
          request,
          caller,
          HttpStatus.valueOf(answer.code()),
          null,
          null,
          "Could not " + what + ": " + ApiAnswers.detail(answer));
    }
    Object value = answer.body() instanceof Map<?, ?> body ? body.get(field) : null;
    return page(request, caller, HttpStatus.OK, label, String.valueOf(value), null);
  }

  private HttpResponse<?> page(
      HttpRequest<?> request,
      ConsoleAuth.Caller caller,
      HttpStatus status,
      String label,
      String secret,
      String notice) {
    boolean admin = caller.may(Access.Role.ADMIN);
    List<TokenRow> rows = List.of();
    String note = null;
    if (admin) {
      HttpResponse<?> answer =
          tokens.list(caller.asApiRequest(request, HttpMethod.GET, "/api/v1/tokens"));
      if (ApiAnswers.refused(answer)) {
        note = ApiAnswers.detail(answer);
      } else if (answer.body() instanceof Map<?, ?> body
          && body.get("tokens") instanceof JsonNode list) {
        rows = rows(list);
      }
    } else {
      note = "Only an admin may see and manage the tenant's tokens.";
    }
    String base =
        (request.isSecure() ? "https://" : "http://")
            + request.getHeaders().getFirst("Host").orElse("localhost");
    return templates.page(
        status,
        "tenant",
        new TenantPage(
            chrome(caller, "Tenant", "tenant"), admin, rows, note, label, secret, base, notice));
  }

  static List<TokenRow> rows(JsonNode list) {
    List<TokenRow> rows = new ArrayList<>();
    for (JsonNode t : list) {
      rows.add(
          new TokenRow(
              t.path("id").asText(""),
              t.path("role").asText(""),
              t.path("description").asText(""),
              t.path("createdAt").asText(""),
              t.hasNonNull("revokedAt") ? t.get("revokedAt").asText() : ""));
    }
    return rows;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
