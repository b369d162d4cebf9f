package dev.stagecraft.planner.service.run.view;

import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.source.RunSource;
import dev.stagecraft.planner.service.workspace.VariableUse;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A run as {@code GET /api/v1/runs/{id}} shows it: live from the coordinator while this instance
 * drives it, else as recorded; both carry the recorded fields. Plain data: the HTTP adapter
 * registers how it is written (the {@link Live} and {@link Recorded} groups inline, each present
 * only when known, and {@code awaitingApproval} / {@code approvalExpiresAt} only when known).
 *
 * @param live what only the instance driving the run knows (its plan text); null: not driven here
 * @param awaitingApproval whether it waits for approval now; null: not known here (only the
 *     instance driving it knows)
 * @param approvalExpiresAt until when it waits for approval; null when it does not
 * @param recorded what the run's records add; null: not recorded yet
 */
public record RunView(
    String id,
    String tenant,
    String workspace,
    String status,
    boolean terminal,
    String message,
    String planDigest,
    Live live,
    Instant createdAt,
    Boolean awaitingApproval,
    Instant approvalExpiresAt,
    Recorded recorded,
    List<Transition> transitions) {

  /** The plan text of a run this instance drives (null until it planned). */
  public record Live(String planText) {}

  /**
   * What a run's records keep beyond its summary.
   *
   * @param variables the names of the variables its request gave
   * @param source where its configuration came from (the commit of a git run); null for runs whose
   *     request sent it, or recorded before sources existed
   * @param variableSources every variable it used and where its value came from (never a value)
   * @param variableVersions the versions of the workspace's variables and of each variable set it
   *     read ({@code workspace}, {@code set:NAME})
   * @param traceId the id of the run's trace (docs/adr/0083); null when tracing was off
   */
  public record Recorded(
      Instant updatedAt,
      String requestMessage,
      String requestedBy,
      String approvedBy,
      Instant approvedAt,
      String configurationVersion,
      List<String> variables,
      RunSource source,
      List<VariableUse> variableSources,
      Map<String, Long> variableVersions,
      String traceId) {}

  /** A recorded transition. */
  public record Transition(long sequence, String status, String message, Instant at) {}

  /**
   * The view of a run this instance drives, with its records when there are some.
   *
   * @param approvalExpiresAt null when it does not wait for approval
   */
  public static RunView live(
      Run.RunSummary summary,
      Instant approvalExpiresAt,
      Recorded recorded,
      List<Transition> transitions) {
    return new RunView(
        summary.id(),
        summary.tenant(),
        summary.workspace(),
        summary.status(),
        summary.terminal(),
        summary.message(),
        summary.planDigest(),
        new Live(summary.planText()),
        summary.createdAt(),
        approvalExpiresAt != null,
        approvalExpiresAt,
        recorded,
        transitions);
  }

  /**
   * The view of a run shown from its records.
   *
   * @param awaitingApproval null when the records cannot tell
   */
  public static RunView recorded(
      RunSummaryView summary,
      Recorded recorded,
      Boolean awaitingApproval,
      List<Transition> transitions) {
    return new RunView(
        summary.id(),
        summary.tenant(),
        summary.workspace(),
        summary.status(),
        summary.terminal(),
        summary.message(),
        summary.planDigest(),
        null,
        summary.createdAt(),
        awaitingApproval,
        null,
        recorded,
        transitions);
  }
}
