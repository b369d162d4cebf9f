package dev.stagecraft.servicekit.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.EventCodec;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;

/**
 * JSON in and out with the project's one mapper, so responses are byte-for-byte what we intend
 * (empty maps and lists kept, as Terraform expects) whatever the framework's defaults.
 */
public final class Json {
  private static final ObjectMapper MAPPER = EventCodec.mapper();

  private Json() {}

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static HttpResponse<String> respond(HttpStatus status, Object body) {
    return HttpResponse.<String>status(status)
        .contentType(MediaType.APPLICATION_JSON_TYPE)
        .body(write(body));
  }

  /** Parses a request body that must be a JSON object. */
  public static JsonNode object(String body) {
    if (body == null || body.isBlank()) {
      throw Problem.badRequest("the request body must be a JSON object");
    }
    try {
      JsonNode node = MAPPER.readTree(body);
      if (node == null || !node.isObject()) {
        throw Problem.badRequest("the request body must be a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw Problem.badRequest("the request body is not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** A required, non-blank string field. */
  public static String requiredText(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw Problem.badRequest("field '" + field + "' is required and must be a non-empty string");
    }
    return value.asText();
  }
}
