package dev.stagecraft.planner.service.console;

import dev.stagecraft.servicekit.http.Json;
import io.micronaut.http.HttpResponse;
import java.util.List;

/**
 * Reads the answers of the API's controllers the console calls in-process: whether they refused,
 * the problem's detail (what a person can act on), and their bodies.
 */
final class ApiAnswers {
  private ApiAnswers() {}

  static boolean refused(HttpResponse<?> response) {
    return response.code() >= 400;
  }

  /** The problem document's detail (or its status when it has none). */
  static String detail(HttpResponse<?> response) {
    Object body = response.body();
    if (body instanceof String text && !text.isBlank()) {
      try {
        String detail = Json.object(text).path("detail").asText("");
        if (!detail.isBlank()) {
          return detail;
        }
      } catch (RuntimeException e) {
        return text;
      }
    }
    return "The request was refused (HTTP " + response.code() + ").";
  }

  /** The body as a list of {@code type} (what {@code GET /api/v1/runs} answers). */
  static <T> List<T> list(HttpResponse<?> response, Class<T> type) {
    if (response.body() instanceof List<?> items) {
      return items.stream().filter(type::isInstance).map(type::cast).toList();
    }
    return List.of();
  }
}
