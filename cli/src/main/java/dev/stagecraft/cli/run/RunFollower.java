package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.ErrorLine;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Follows a run until it ends, printing its transitions and provisioner output the way Terraform
 * prints an apply. Reads the run's log over Server-Sent Events ({@link RunEventStream}, which
 * resumes a dropped connection), so output appears as soon as it is recorded.
 *
 * <p>When the run stops at {@code planned} to wait for approval (a workspace without auto-apply),
 * the follower decides as its {@link RunApproval} says: {@code apply} approves the plan the user
 * approved (the one shown, or saved; a run that planned anything else is discarded, never applied)
 * or, with {@code -auto-approve}, the plan the run made; {@code runs logs -follow} decides nothing
 * and says how to approve or discard, then keeps following.
 *
 * <p>Ctrl-C (when {@code cancelOnCtrlC}, as for {@code apply}): the first asks the planner to
 * cancel the run and keeps following until it ends; the second detaches (exit 130), leaving the run
 * to the server. The SIGINT handler is installed only while following and the previous one
 * restored.
 */
final class RunFollower {
  /** The exit code after detaching, as a shell reports a command ended by SIGINT. */
  static final int DETACHED = 130;

  private final CliContext ctx;
  private final ApiClient api;
  private final boolean showPlan;
  private final boolean cancelOnCtrlC;
  private final RunApproval approval;
  private final AtomicInteger interrupts = new AtomicInteger();
  private volatile String runId;
  private volatile RunEventStream stream;

  /** As {@code apply} follows the run it started: Ctrl-C cancels it. */
  RunFollower(CliContext ctx, ApiClient api, boolean showPlan, RunApproval approval) {
    this(ctx, api, showPlan, true, approval);
  }

  RunFollower(
      CliContext ctx,
      ApiClient api,
      boolean showPlan,
      boolean cancelOnCtrlC,
      RunApproval approval) {
    this.ctx = ctx;
    this.api = api;
    this.showPlan = showPlan;
    this.cancelOnCtrlC = cancelOnCtrlC;
    this.approval = approval;
  }

  /** Prints the run's events until it is terminal; returns the CLI exit code. */
  int follow(String runId) throws IOException, InterruptedException {
    RunEventStream stream = new RunEventStream(api, runId);
    this.runId = runId;
    this.stream = stream;
    Signal sigint = new Signal("INT");
    SignalHandler previous = null;
    if (cancelOnCtrlC) {
      try {
        previous = Signal.handle(sigint, signal -> onCtrlC());
      } catch (IllegalArgumentException e) {
        // the JVM reserves SIGINT (-Xrs): Ctrl-C then simply ends the CLI; the run goes on
      }
    }
    String status;
    try {
      status =
          stream.follow(
              event -> {
                print(event);
                if ("status".equals(event.path("kind").asText())
                    && "planned".equals(event.path("status").asText())) {
                  decide();
                }
              });
    } finally {
      if (previous != null) {
        Signal.handle(sigint, previous);
      }
    }
    if (status == null) {
      return DETACHED;
    }
    return switch (status) {
      case "applied", "planned_and_finished" -> 0;
      default -> 1;
    };
  }

  /**
   * What a Ctrl-C does while following: the first cancels the run (it keeps being followed until it
   * ends), the second detaches. Called on the JVM's signal thread, while {@link #follow} runs.
   */
  void onCtrlC() {
    String runId = this.runId;
    RunEventStream stream = this.stream;
    if (interrupts.incrementAndGet() == 1) {
      ctx.err().println();
      ctx.err().println("Interrupt received. Canceling run " + runId + "...");
      ctx.err().println("  (press Ctrl-C again to stop following; the run goes on on the server)");
      try {
        api.postRetrying(
            api.api("runs") + "/" + URLEncoder.encode(runId, StandardCharsets.UTF_8) + "/cancel",
            Map.of(),
            CancelCommand.CANCEL_PATIENCE,
            why -> ctx.err().println("Waiting: " + why));
      } catch (IOException | RuntimeException e) {
        ctx.err().println("Error: could not cancel run " + runId + ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      ctx.err().println();
      ctx.err()
          .println(
              "Stopped following run "
                  + runId
                  + "; it goes on on the server. Follow it again with: stagecraft runs logs "
                  + runId
                  + " -follow");
      stream.detach();
    }
  }

  /**
   * The run planned: when it waits for approval, approves or discards it as {@link #approval} says,
   * or tells the user how to. Once per run: a replayed {@code planned} after a resumed stream finds
   * the run decided.
   */
  private void decide() {
    String runId = this.runId;
    try {
      JsonNode run = RunApproval.read(api, runId);
      if (!RunApproval.mayWait(run)) {
        return; // it applies automatically, or was decided already
      }
      if (!approval.approve()) {
        ctx.err().println(RunApproval.howToDecide(runId, run));
        return;
      }
      String planned = run.path("planDigest").asText("");
      if (approval.digest() != null && !approval.digest().equals(planned)) {
        RunApproval.discard(ctx, api, runId);
        ctx.err()
            .println(
                "Error: run "
                    + runId
                    + " planned something else than the plan you approved ("
                    + approval.digest()
                    + "; the run's plan is "
                    + planned
                    + "). It was discarded and nothing was applied; plan again.");
        return;
      }
      RunApproval.approve(ctx, api, runId, planned);
      ctx.out().println("Approved plan " + planned + ".");
    } catch (ApiClient.ApiException e) {
      if (!RunApproval.notAwaiting(e)) {
        ctx.err().println("Error: could not decide on run " + runId + ": " + e.getMessage());
      }
    } catch (IOException e) {
      ctx.err().println("Error: could not decide on run " + runId + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Prints one journal entry as {@code apply} shows it. */
  void print(JsonNode event) {
    switch (event.path("kind").asText()) {
      case "status" -> printStatus(event.get("status").asText(), text(event, "message"));
      case "log" ->
          ctx.out()
              .println(event.get("address").asText() + " (local-exec): " + text(event, "line"));
      case "action" -> printAction(event.get("address").asText(), text(event, "message"));
      default -> {}
    }
  }

  private void printStatus(String status, String message) {
    switch (status) {
      case "queued" -> ctx.out().println(message == null ? "Run queued." : message);
      case "planned" -> {
        if (showPlan && message != null) {
          ctx.out().print(message);
          ctx.out().println();
        }
      }
      case "planned_and_finished" -> {
        if (!showPlan) {
          ctx.out().println("No changes. Your infrastructure matches the configuration.");
        }
      }
      case "applied" -> {
        ctx.out().println();
        ctx.out().println(message);
      }
      case "errored" -> {
        ctx.err().println();
        ctx.err().println(ErrorLine.of(message));
      }
      case "canceled" -> {
        ctx.err().println();
        ctx.err().println("Canceled: " + message);
      }
      default -> {}
    }
  }

  private void printAction(String address, String message) {
    if (message == null) {
      return;
    }
    if (message.endsWith(" dispatched")) {
      String verb =
          switch (message.substring(0, message.indexOf(' '))) {
            case "create" -> "Creating...";
            case "replace" -> "Replacing...";
            case "update" -> "Modifying...";
            case "delete" -> "Destroying...";
            case "forget" -> "Removing from state...";
            default -> message;
          };
      ctx.out().println(address + ": " + verb);
    } else if (message.equals("complete")) {
      ctx.out().println(address + ": Complete");
    } else if (message.startsWith("error:") || message.startsWith("failed")) {
      ctx.err().println(address + ": " + message);
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
