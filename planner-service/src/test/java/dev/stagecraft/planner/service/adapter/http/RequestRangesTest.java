package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.servicekit.http.Json;
import io.micronaut.core.convert.exceptions.ConversionErrorException;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Numbers in requests are range-checked, and refused with a problem document naming the range. */
class RequestRangesTest {

  private static JsonNode problem(HttpResponse<?> response) {
    assertThat(response).isNotNull();
    assertThat(response.getContentType())
        .hasValueSatisfying(t -> assertThat(t.toString()).isEqualTo("application/problem+json"));
    return Json.object(String.valueOf(response.body()));
  }

  @Test
  void aNumberOutsideItsRangeIsRefusedNamingTheRange() {
    JsonNode parallelism = problem(RequestRanges.PARALLELISM.check(1_000_000));
    assertThat(parallelism.get("status").asInt()).isEqualTo(400);
    assertThat(parallelism.get("title").asText()).isEqualTo("Invalid parallelism");
    assertThat(parallelism.get("detail").asText())
        .isEqualTo("parallelism must be from 1 to 256; got 1000000.");
    assertThat(problem(RequestRanges.PARALLELISM.check(0)).get("detail").asText())
        .contains("got 0");
    assertThat(problem(RequestRanges.WAIT_SECONDS.check(3600)).get("detail").asText())
        .isEqualTo("wait must be from 0 to 30; got 3600.");
    assertThat(problem(RequestRanges.SERIAL.check(-1L)).get("detail").asText())
        .isEqualTo("expectedSerial must be 0 or more; got -1.");
    assertThat(problem(RequestRanges.PORT.check(70000)).get("title").asText())
        .isEqualTo("Invalid port");
    assertThat(problem(RequestRanges.PAGE_SIZE.check(1001)).get("detail").asText())
        .contains("from 1 to 1000");
  }

  @Test
  void numbersInTheirRangeAndAbsentOnesPass() {
    assertThat(RequestRanges.PARALLELISM.check(1)).isNull();
    assertThat(RequestRanges.PARALLELISM.check(256)).isNull();
    assertThat(RequestRanges.PARALLELISM.check(null)).isNull();
    assertThat(RequestRanges.SEQUENCE.check(Long.MAX_VALUE)).isNull();
    assertThat(RequestRanges.first(null, RequestRanges.PORT.check(22), null)).isNull();
  }

  @Test
  void whatTheServerCannotReadIsAProblemDocumentToo() {
    // e.g. ?size=99999999999: beyond an int, refused by the server before the controller runs
    ConversionErrorException e =
        new ConversionErrorException(
            Argument.of(Integer.class, "size"),
            () -> new NumberFormatException("For input string: \"99999999999\""));
    MutableHttpResponse<String> response =
        new ProblemErrorResponses()
            .processResponse(
                ErrorContext.builder(HttpRequest.GET("/api/v1/runs?size=99999999999"))
                    .cause(e)
                    .errorMessage(e.getMessage())
                    .build(),
                HttpResponse.badRequest());
    JsonNode body = problem(response);
    assertThat(body.get("status").asInt()).isEqualTo(400);
    assertThat(body.get("detail").asText()).contains("size").contains("99999999999");
    assertThat(Optional.ofNullable(body.get("type")).map(JsonNode::asText))
        .hasValue("https://stagecraft.dev/problems/bad-request");
  }
}
