package dev.stagecraft.schemas.envelope;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;

/**
 * The one envelope of every Stagecraft event: a CloudEvents 1.0 structured-mode JSON document with
 * the extension attributes {@code tenant}, {@code workspace}, {@code runid}, {@code sequence} and
 * {@code schemaversion}.
 *
 * <p>{@code id} is the idempotency key of the event: consumers that apply an event to durable state
 * must ignore a second delivery of the same id. {@code sequence} orders the events one producer
 * emits for one run.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EventEnvelope(
    String specversion,
    String id,
    String source,
    String type,
    String subject,
    Instant time,
    String datacontenttype,
    String tenant,
    String workspace,
    String runid,
    long sequence,
    String schemaversion,
    JsonNode data) {

  public static final String SPEC_VERSION = "1.0";

  public EventEnvelope {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(tenant, "tenant");
  }

  /** The Kafka key that keeps everything about one workspace in order. */
  public String workspaceKey() {
    return tenant + "/" + workspace;
  }
}
