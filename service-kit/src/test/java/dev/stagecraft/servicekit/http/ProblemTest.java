package dev.stagecraft.servicekit.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.schemas.EventCodec;
import io.micronaut.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProblemTest {

  @Test
  void internalProblemsAreAboutBlankWithoutDiagnostics() throws Exception {
    HttpResponse<String> response = Problem.conflict("acquire the lock again").response();

    assertThat(response.code()).isEqualTo(409);
    assertThat(response.getHeaders().get("Content-Type")).isEqualTo("application/problem+json");
    assertThat(response.body())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Conflict\",\"status\":409,"
                + "\"detail\":\"acquire the lock again\"}");
  }

  @Test
  void publicProblemsCarryADocumentedTypeAndTheirDiagnostics() throws Exception {
    Map<String, Object> finding = new java.util.LinkedHashMap<>();
    finding.put("severity", "error");
    finding.put("range", null);
    Problem problem =
        new Problem(
            Problem.typeFor("Invalid configuration"),
            422,
            "Invalid configuration",
            "main.tf:1,1: no",
            List.of(finding));

    JsonNode body = EventCodec.mapper().readTree(problem.response().body());

    assertThat(body.get("type").asText())
        .isEqualTo("https://stagecraft.dev/problems/invalid-configuration");
    assertThat(body.get("status").asInt()).isEqualTo(422);
    assertThat(body.get("diagnostics").get(0).get("severity").asText()).isEqualTo("error");
    assertThat(body.get("diagnostics").get(0).has("range")).isTrue();
    assertThat(problem.document().keySet())
        .containsExactly("type", "title", "status", "detail", "diagnostics");
  }

  @Test
  void handlerChallengesForABearerTokenOnlyOn401() {
    ProblemHandler handler = new ProblemHandler();

    HttpResponse<String> unauthorized = handler.handle(null, Problem.unauthorized("send a token"));
    HttpResponse<String> badRequest = handler.handle(null, Problem.badRequest("fix the body"));

    assertThat(unauthorized.code()).isEqualTo(401);
    assertThat(unauthorized.getHeaders().get("WWW-Authenticate")).isEqualTo("Bearer");
    assertThat(badRequest.code()).isEqualTo(400);
    assertThat(badRequest.getHeaders().contains("WWW-Authenticate")).isFalse();
  }
}
