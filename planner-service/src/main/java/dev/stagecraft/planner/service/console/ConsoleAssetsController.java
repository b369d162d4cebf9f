package dev.stagecraft.planner.service.console;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The console's static assets, {@code /console/assets/{name}}: its stylesheet and its one script
 * (classpath {@code console/assets}); no build chain. Public (they hold no tenant data).
 */
@Hidden // pages for people, not part of the public API's OpenAPI document
@Controller("/console/assets")
public class ConsoleAssetsController {
  private static final Map<String, String> TYPES =
      Map.of(
          "console.css", "text/css;charset=utf-8",
          "console.js", "text/javascript;charset=utf-8");

  @Get("/{name}")
  public HttpResponse<?> asset(@PathVariable String name) {
    String type = TYPES.get(name);
    if (type == null) {
      return HttpResponse.notFound();
    }
    try (InputStream in = getClass().getResourceAsStream("/console/assets/" + name)) {
      if (in == null) {
        return HttpResponse.notFound();
      }
      return HttpResponse.ok(in.readAllBytes())
          .contentType(MediaType.of(type))
          .header("Cache-Control", "max-age=300")
          .header("X-Content-Type-Options", "nosniff");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
