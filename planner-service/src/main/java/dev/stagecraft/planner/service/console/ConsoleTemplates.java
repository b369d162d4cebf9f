package dev.stagecraft.planner.service.console;

import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;

/**
 * Renders the console's precompiled jte templates ({@code src/main/jte/console}, HTML content type:
 * every {@code ${...}} is escaped for where it stands) into responses with the console's headers.
 * The engine is immutable; thread-safe.
 */
public final class ConsoleTemplates {
  private final TemplateEngine engine;

  public ConsoleTemplates(TemplateEngine engine) {
    this.engine = engine;
  }

  /** The HTML of template {@code console/<name>.jte} with its one parameter. */
  public String render(String name, Object model) {
    StringOutput out = new StringOutput();
    engine.render("console/" + name + ".jte", model, out);
    return out.toString();
  }

  /** A page: {@code status} with the rendered template. */
  public MutableHttpResponse<String> page(HttpStatus status, String name, Object model) {
    return secured(HttpResponse.<String>status(status).body(render(name, model)));
  }

  /** The console's response headers: HTML, never cached, only its own scripts, no framing. */
  static <T> MutableHttpResponse<T> secured(MutableHttpResponse<T> response) {
    return response
        .contentType(MediaType.TEXT_HTML_TYPE.toString() + ";charset=utf-8")
        .header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "same-origin")
        .header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none';"
                + " form-action 'self'; base-uri 'none'");
  }
}
