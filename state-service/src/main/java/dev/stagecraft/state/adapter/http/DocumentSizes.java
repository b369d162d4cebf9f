package dev.stagecraft.state.adapter.http;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpResponse;
import jakarta.inject.Singleton;

/**
 * The sizes of state documents the HTTP backend serves and receives ({@code
 * stagecraft_state_document_size_bytes{operation="read"|"push"}}): a workspace whose state grows
 * without bound shows here before its reads and writes slow down (docs/operations.md).
 *
 * <p>Concurrency: Micrometer's summaries are thread-safe; this holds nothing else.
 */
@Singleton
public final class DocumentSizes {
  private final DistributionSummary reads;
  private final DistributionSummary pushes;

  public DocumentSizes(MeterRegistry meters) {
    this.reads = summary(meters, "read");
    this.pushes = summary(meters, "push");
  }

  private static DistributionSummary summary(MeterRegistry meters, String operation) {
    return DistributionSummary.builder("stagecraft.state.document.size")
        .baseUnit("bytes")
        .description("Size of a state document served or received over the HTTP backend")
        .tag("operation", operation)
        .publishPercentileHistogram()
        .register(meters);
  }

  /** Records the size of the document {@code response} carries (none for an empty state). */
  <T> HttpResponse<T> read(HttpResponse<T> response) {
    Object body = response.body();
    if (body instanceof byte[] bytes) {
      reads.record(bytes.length);
    } else if (body instanceof StoredDocumentBody stored) {
      reads.record(stored.document().size());
    }
    return response;
  }

  /**
   * Records an accepted push of {@code length} bytes (unknown for a chunked upload: not counted).
   */
  void pushed(Long length) {
    if (length != null && length >= 0) {
      pushes.record(length);
    }
  }
}
