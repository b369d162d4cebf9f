package dev.stagecraft.planner.service.adapter.http;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;

/**
 * The allowed ranges of the numbers in requests (docs/runs.md "Limits", ADR 0061): a number outside
 * its range is refused with 400 {@code application/problem+json} naming the field and the range,
 * before anything is done with it.
 */
final class RequestRanges {
  /** Actions of one run at once: a run's or a workspace's {@code parallelism}. */
  static final Range PARALLELISM = new Range("parallelism", 1, 256);

  /** A workspace's step timeout, in seconds: up to a day. */
  static final Range STEP_TIMEOUT_SECONDS = new Range("stepTimeoutSeconds", 1, 86_400);

  /** A page of {@code GET /runs}. */
  static final Range PAGE_SIZE = new Range("size", 1, 1000);

  /** How long {@code GET /runs/{id}/events} waits for news, in seconds. */
  static final Range WAIT_SECONDS = new Range("wait", 0, 30);

  /** A journal sequence number ({@code after}, {@code Last-Event-ID}). */
  static final Range SEQUENCE = new Range("after", 0, Long.MAX_VALUE);

  /** A state serial ({@code expectedSerial}). */
  static final Range SERIAL = new Range("expectedSerial", 0, Long.MAX_VALUE);

  /** A TCP port ({@code port} of a known host). */
  static final Range PORT = new Range("port", 1, 65535);

  private RequestRanges() {}

  /** A named field's allowed range, inclusive. */
  record Range(String field, long min, long max) {
    /** 400 naming the field and its range when {@code value} is outside it; null when it is in. */
    HttpResponse<?> check(Number value) {
      if (value == null || (value.longValue() >= min && value.longValue() <= max)) {
        return null;
      }
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "Invalid " + field,
          field
              + " must be "
              + (max == Long.MAX_VALUE ? min + " or more" : "from " + min + " to " + max)
              + "; got "
              + value
              + ".");
    }
  }

  /** The first refusal of {@code checks}, or null when every value is in its range. */
  static HttpResponse<?> first(HttpResponse<?>... checks) {
    for (HttpResponse<?> refusal : checks) {
      if (refusal != null) {
        return refusal;
      }
    }
    return null;
  }
}
