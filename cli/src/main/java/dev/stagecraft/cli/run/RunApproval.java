package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Approving or discarding a run that waits for approval (a workspace without auto-apply,
 * docs/runs.md "Approval"), as {@code apply}, {@code apply FILE} and {@code runs approve|discard}
 * do it. The server binds an approval to the plan's digest, so what is approved is always a plan
 * the user was shown (or saved); these commands are sent again while the server answers 503 with
 * {@code Retry-After}, as a cancel is (the planner instance that drives the run may be being
 * replaced).
 *
 * @param approve whether the CLI approves the run's plan when it waits
 * @param digest the only plan digest the CLI may approve (the plan shown or saved); null: the plan
 *     the run made ({@code -auto-approve})
 */
record RunApproval(boolean approve, String digest) {
  /**
   * Follows without deciding: a run that waits is left waiting, and the user told how to decide.
   */
  static final RunApproval NONE = new RunApproval(false, null);

  /** {@code -auto-approve}: the plan the run made, whatever it is. */
  static final RunApproval ANY = new RunApproval(true, null);

  /** Exactly the plan with this digest; any other plan is discarded, not applied. */
  static RunApproval of(String digest) {
    return new RunApproval(true, digest);
  }

  /** The run as the server shows it now. */
  static JsonNode read(ApiClient api, String runId) throws IOException, InterruptedException {
    return api.get(runUrl(api, runId));
  }

  /**
   * Whether the run waits for approval now. A run another planner instance drives is shown from its
   * records, without {@code awaitingApproval}: then a {@code planned} run that has not ended may
   * wait (the approval itself says whether it did).
   */
  static boolean mayWait(JsonNode run) {
    JsonNode awaiting = run.get("awaitingApproval");
    if (awaiting != null && !awaiting.isNull()) {
      return awaiting.asBoolean();
    }
    return "planned".equals(run.path("status").asText()) && !run.path("terminal").asBoolean();
  }

  static JsonNode approve(CliContext ctx, ApiClient api, String runId, String digest)
      throws IOException, InterruptedException {
    return api.postRetrying(
        runUrl(api, runId) + "/approve",
        Map.of("planDigest", digest),
        CancelCommand.CANCEL_PATIENCE,
        why -> ctx.err().println("Waiting: " + why));
  }

  static JsonNode discard(CliContext ctx, ApiClient api, String runId)
      throws IOException, InterruptedException {
    return api.postRetrying(
        runUrl(api, runId) + "/discard",
        Map.of(),
        CancelCommand.CANCEL_PATIENCE,
        why -> ctx.err().println("Waiting: " + why));
  }

  /** Whether the server refused a decision because the run does not wait (any longer). */
  static boolean notAwaiting(ApiClient.ApiException e) {
    return e.status() == 409
        && e.body() != null
        && "Not awaiting approval".equals(e.body().path("title").asText());
  }

  /** How to decide on a waiting run, for a user following it without deciding. */
  static String howToDecide(String runId, JsonNode run) {
    String digest = run.path("planDigest").asText("");
    String until = run.path("approvalExpiresAt").asText("");
    return "Run "
        + runId
        + " waits for approval of its plan"
        + (digest.isEmpty() ? "" : " " + digest)
        + (until.isEmpty() ? "" : " (until " + until + ")")
        + ". Approve it with: stagecraft runs approve "
        + runId
        + (digest.isEmpty() ? "" : " -digest=" + digest)
        + "; or discard it with: stagecraft runs discard "
        + runId;
  }

  private static String runUrl(ApiClient api, String runId)
      throws IOException, InterruptedException {
    return api.api("runs") + "/" + URLEncoder.encode(runId, StandardCharsets.UTF_8);
  }
}
