package dev.stagecraft.planner.service.adapter.http;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /api/v1/openapi.yml}: the OpenAPI document of the public API, generated from the
 * controllers at compile time ({@code META-INF/swagger/stagecraft-v1.yml}). No authentication: it
 * describes routes, never data.
 */
@Controller
public class OpenApiController {
  static final String RESOURCE = "META-INF/swagger/stagecraft-v1.yml";
  private final String document;

  public OpenApiController() {
    try (InputStream in = OpenApiController.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      document = in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Hidden
  @Get(value = "/api/v1/openapi.yml", produces = "application/yaml")
  public HttpResponse<?> openApi() {
    if (document == null) {
      return ApiProblems.problem(
          HttpStatus.NOT_FOUND,
          "Not Found",
          "This build has no OpenAPI document (" + RESOURCE + " is missing from the jar).");
    }
    return HttpResponse.ok(document).contentType("application/yaml");
  }
}
