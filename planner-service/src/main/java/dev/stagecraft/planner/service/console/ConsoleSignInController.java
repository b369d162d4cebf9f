package dev.stagecraft.planner.service.console;

import dev.stagecraft.planner.service.console.PageModels.Chrome;
import dev.stagecraft.planner.service.console.PageModels.MessagePage;
import dev.stagecraft.planner.service.console.PageModels.SignInPage;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Hidden;
import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * The console's sign-in (an API token exchanged for a session cookie), sign-out and its entry
 * {@code /console}. Sessions: {@link ConsoleAuth}, {@link ConsoleSessions} (docs/adr/0079).
 */
@Hidden // pages for people, not part of the public API's OpenAPI document
@Controller("/console")
@Produces(MediaType.TEXT_HTML) // the JSON default would refuse a fetch that accepts only HTML (406)
@ExecuteOn(TaskExecutors.BLOCKING)
public class ConsoleSignInController {
  private final ConsoleAuth auth;
  private final ConsoleTemplates templates;

  public ConsoleSignInController(ConsoleAuth auth, ConsoleTemplates templates) {
    this.auth = auth;
    this.templates = templates;
  }

  @Get
  public HttpResponse<?> home() {
    return HttpResponse.seeOther(URI.create("/console/runs"));
  }

  @Get("/sign-in")
  public HttpResponse<?> form() {
    return templates.page(HttpStatus.OK, "signIn", new SignInPage(signedOut(), null));
  }

  @Post("/sign-in")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> signIn(HttpRequest<?> request, @Nullable @Body Map<String, String> form) {
    if (!auth.available()) {
      return templates.page(
          HttpStatus.SERVICE_UNAVAILABLE,
          "signIn",
          new SignInPage(
              signedOut(),
              "The console needs the secrets keyring (STAGECRAFT_SECRETS_KEYS) to keep sessions."));
    }
    if (ConsoleAuth.crossSite(request)) {
      return templates.page(
          HttpStatus.FORBIDDEN,
          "signIn",
          new SignInPage(
              signedOut(),
              "This sign-in was sent from another site's page; sign in from this form."));
    }
    String token = form == null ? null : form.get("token");
    Optional<ConsoleSessions.Started> started = auth.signIn(token);
    if (started.isEmpty()) {
      return templates.page(
          HttpStatus.UNAUTHORIZED,
          "signIn",
          new SignInPage(signedOut(), "That token is not valid (revoked, or mistyped)."));
    }
    return HttpResponse.seeOther(URI.create("/console/runs"))
        .cookie(ConsoleAuth.sessionCookie(request, started.get().id()));
  }

  @Post("/sign-out")
  @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
  public HttpResponse<?> signOut(HttpRequest<?> request, @Nullable @Body Map<String, String> form) {
    Optional<ConsoleAuth.Caller> caller = auth.caller(request);
    if (caller.isPresent()) {
      if (!caller
          .get()
          .session()
          .csrfMatches(form == null ? null : form.get(ConsoleAuth.CSRF_FIELD))) {
        return forbiddenWithoutCsrf(templates, caller.get());
      }
      auth.signOut(caller.get());
    }
    return HttpResponse.seeOther(URI.create("/console/sign-in"))
        .cookie(ConsoleAuth.clearedCookie(request));
  }

  static Chrome signedOut() {
    return new Chrome("Sign in", null, null, null, "sign-in");
  }

  /** 403: a console POST without its session's CSRF token. */
  static HttpResponse<?> forbiddenWithoutCsrf(ConsoleTemplates templates, ConsoleAuth.Caller c) {
    return templates.page(
        HttpStatus.FORBIDDEN,
        "message",
        new MessagePage(
            chrome(c, "Refused", null),
            "Refused",
            "This form was not sent from the console (its CSRF token is missing or wrong);"
                + " reload the page and try again.",
            "/console/runs"));
  }

  static Chrome chrome(ConsoleAuth.Caller c, String title, String section) {
    return new Chrome(
        title, c.principal().tenant(), c.principal().role(), c.session().csrf(), section);
  }
}
