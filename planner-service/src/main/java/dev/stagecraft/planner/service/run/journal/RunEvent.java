package dev.stagecraft.planner.service.run.journal;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.stagecraft.planner.service.run.RunStatus;
import java.time.Instant;

/**
 * One entry of a run's journal, as the CLI follows it.
 *
 * @param kind {@code status} (a lifecycle transition), {@code log} (a provisioner output line) or
 *     {@code action} (an action started, succeeded or failed)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunEvent(
    long sequence,
    Instant time,
    String kind,
    String status,
    String address,
    String stream,
    String line,
    String message) {

  static RunEvent status(long seq, Instant time, RunStatus status, String message) {
    return new RunEvent(seq, time, "status", status.wireName(), null, null, null, message);
  }
}
