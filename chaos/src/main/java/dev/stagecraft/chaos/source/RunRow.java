package dev.stagecraft.chaos.source;

import java.time.Instant;
import java.util.List;

/**
 * A run as the planner records it ({@code planner.runs}) with its transitions ({@code
 * planner.run_transitions}, in sequence order).
 */
public record RunRow(
    String id,
    String tenant,
    String workspace,
    String status,
    Instant createdAt,
    Instant updatedAt,
    List<Transition> transitions) {

  /** One lifecycle transition. */
  public record Transition(long sequence, String status, Instant at) {}

  public RunRow {
    transitions = List.copyOf(transitions);
  }
}
