package dev.stagecraft.planner.service.console;

import dev.stagecraft.planner.service.adapter.db.RunStore.RunRecord;
import dev.stagecraft.planner.service.adapter.http.Access;
import dev.stagecraft.planner.service.console.PageModels.Chrome;
import dev.stagecraft.planner.service.console.PageModels.Counts;
import dev.stagecraft.planner.service.console.PageModels.Decisions;
import dev.stagecraft.planner.service.console.PageModels.RunPage;
import dev.stagecraft.planner.service.console.PageModels.RunRow;
import dev.stagecraft.planner.service.console.PageModels.RunsPage;
import dev.stagecraft.planner.service.console.PageModels.TransitionRow;
import dev.stagecraft.planner.service.run.view.RunView;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;

/**
 * Builds the runs pages' models from what the API's run reads answer ({@link RunRecord}, {@link
 * RunView}). Pure functions; no I/O.
 */
public final class RunPages {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
  private static final Set<String> ACTIVE = Set.of("pending", "planning", "applying");

  private RunPages() {}

  /** The runs list: rows newest first (as read), counts over every run given. */
  public static RunsPage list(
      Chrome chrome, String workspace, String status, List<RunRecord> runs, String error) {
    int active = 0;
    int queued = 0;
    int waiting = 0;
    for (RunRecord r : runs) {
      if (r.terminal()) {
        continue;
      }
      if (ACTIVE.contains(r.status())) {
        active++;
      } else if ("queued".equals(r.status())) {
        queued++;
      } else if ("planned".equals(r.status())) {
        waiting++;
      }
    }
    List<RunRow> rows =
        runs.stream()
            .filter(r -> workspace == null || workspace.equals(r.workspace()))
            .filter(r -> status == null || status.equals(r.status()))
            .map(RunPages::row)
            .toList();
    return new RunsPage(
        chrome,
        workspace == null ? "" : workspace,
        status == null ? "" : status,
        query(workspace, status),
        new Counts(active, queued, waiting),
        rows,
        error);
  }

  /** The query string of the list's live part for these filters ("" without filters). */
  static String query(String workspace, String status) {
    StringBuilder q = new StringBuilder();
    if (workspace != null) {
      q.append("workspace=").append(URLEncoder.encode(workspace, StandardCharsets.UTF_8));
    }
    if (status != null) {
      q.append(q.isEmpty() ? "" : "&")
          .append("status=")
          .append(URLEncoder.encode(status, StandardCharsets.UTF_8));
    }
    return q.toString();
  }

  private static RunRow row(RunRecord r) {
    return new RunRow(
        r.id(),
        "/console/runs/" + URLEncoder.encode(r.id(), StandardCharsets.UTF_8),
        r.workspace(),
        r.status(),
        r.message() == null ? "" : r.message(),
        time(r.createdAt()),
        r.requestedBy() == null ? "" : r.requestedBy());
  }

  /** One run's page for {@code caller}: decisions only when its role may take them. */
  public static RunPage run(Chrome chrome, RunView view, boolean mayDecide, String notice) {
    RunView.Recorded rec = view.recorded();
    boolean waits =
        Boolean.TRUE.equals(view.awaitingApproval())
            || (view.awaitingApproval() == null && "planned".equals(view.status()));
    Decisions decisions =
        new Decisions(
            mayDecide && waits && view.planDigest() != null,
            mayDecide && waits,
            mayDecide && !view.terminal());
    return new RunPage(
        chrome,
        view.id(),
        view.workspace(),
        view.status(),
        view.terminal(),
        view.message() == null ? "" : view.message(),
        rec == null || rec.requestedBy() == null ? "" : rec.requestedBy(),
        rec == null || rec.approvedBy() == null ? "" : rec.approvedBy(),
        rec == null || rec.source() == null ? "the request's files" : rec.source().describe(),
        rec == null || rec.variableSources() == null
            ? List.of()
            : rec.variableSources().stream().map(v -> v.key() + " — " + v.source()).toList(),
        view.planDigest() == null ? "" : view.planDigest(),
        view.live() == null || view.live().planText() == null ? "" : view.live().planText(),
        view.transitions() == null
            ? List.of()
            : view.transitions().stream()
                .map(
                    t ->
                        new TransitionRow(
                            t.status(), time(t.at()), t.message() == null ? "" : t.message()))
                .toList(),
        decisions,
        notice,
        rec == null || rec.traceId() == null ? "" : rec.traceId());
  }

  /** Whether a caller of this role may approve, discard and cancel (the API's rule). */
  public static boolean mayDecide(ConsoleAuth.Caller caller) {
    return caller.may(Access.Role.DEPLOYER);
  }

  static String time(Instant at) {
    return at == null ? "" : TIME.format(at);
  }
}
