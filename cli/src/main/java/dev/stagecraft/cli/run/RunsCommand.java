package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code stagecraft runs list [-workspace=W] [-status=S]}, {@code runs show RUN_ID} and {@code runs
 * logs RUN_ID [-follow]}: the tenant's runs on the server. {@code logs} prints the run's journal as
 * {@code apply} shows it; with {@code -follow} it keeps reading over Server-Sent Events until the
 * run ends (resuming a dropped connection) and exits like {@code apply} (0 applied, 1 otherwise).
 * {@code runs approve RUN_ID [-digest=D]} approves the plan of a run that waits for approval (with
 * {@code -digest}, only if that is its plan: the digest {@code runs show} printed), and {@code runs
 * discard RUN_ID} discards it.
 */
public final class RunsCommand implements Command {
  /** Which of the three. */
  public enum Mode {
    LIST,
    SHOW,
    LOGS,
    APPROVE,
    DISCARD
  }

  private final Mode mode;

  public RunsCommand(Mode mode) {
    this.mode = mode;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    String workspace = null;
    String status = null;
    boolean follow = false;
    String digest = null;
    List<String> positional = new ArrayList<>();
    for (String arg : args) {
      if (mode == Mode.LIST && arg.startsWith("-workspace=")) {
        workspace = arg.substring("-workspace=".length());
      } else if (mode == Mode.LIST && arg.startsWith("-status=")) {
        status = arg.substring("-status=".length()).toLowerCase(Locale.ROOT);
      } else if (mode == Mode.LOGS && arg.equals("-follow")) {
        follow = true;
      } else if (mode == Mode.APPROVE && arg.startsWith("-digest=")) {
        digest = arg.substring("-digest=".length());
      } else if (arg.startsWith("-")) {
        throw new UsageException("runs " + name() + " has no option " + arg);
      } else {
        positional.add(arg);
      }
    }
    if (mode == Mode.LIST ? !positional.isEmpty() : positional.size() != 1) {
      throw new UsageException(
          mode == Mode.LIST
              ? "runs list takes no arguments, only -workspace=NAME and -status=STATUS"
              : "runs " + name() + " needs exactly one run ID (see stagecraft runs list)");
    }
    ApiClient api = Server.client(ctx);
    try {
      return switch (mode) {
        case LIST -> list(ctx, api, workspace, status);
        case SHOW -> show(ctx, api, positional.getFirst());
        case LOGS ->
            follow
                ? new RunFollower(ctx, api, true, false, RunApproval.NONE)
                    .follow(positional.getFirst())
                : logs(ctx, api, positional.getFirst());
        case APPROVE -> approve(ctx, api, positional.getFirst(), digest);
        case DISCARD -> discard(ctx, api, positional.getFirst());
      };
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  private static int list(CliContext ctx, ApiClient api, String workspace, String status)
      throws Exception {
    StringBuilder url = new StringBuilder(api.api("runs"));
    char sep = '?';
    if (workspace != null) {
      url.append(sep).append("workspace=").append(enc(workspace));
      sep = '&';
    }
    if (status != null) {
      url.append(sep).append("status=").append(enc(status));
    }
    JsonNode runs = api.get(url.toString());
    // filtered here as well, so the options hold whatever filters the server applies
    List<JsonNode> shown = new ArrayList<>();
    for (JsonNode run : runs.isArray() ? runs : runs.path("runs")) {
      if ((workspace == null || workspace.equals(run.path("workspace").asText()))
          && (status == null || status.equals(run.path("status").asText()))) {
        shown.add(run);
      }
    }
    if (shown.isEmpty()) {
      ctx.out().println("No runs.");
      return 0;
    }
    ctx.out().printf("%-22s %-20s %-21s %-24s %s%n", "ID", "WORKSPACE", "STATUS", "CREATED", "");
    for (JsonNode run : shown) {
      ctx.out()
          .printf(
              "%-22s %-20s %-21s %-24s %s%n",
              run.path("id").asText(),
              run.path("workspace").asText(),
              run.path("status").asText(),
              toSeconds(run.path("createdAt").asText()),
              firstLine(run.path("message").asText("")))
          .flush();
    }
    return 0;
  }

  private static int show(CliContext ctx, ApiClient api, String runId) throws Exception {
    JsonNode run = api.get(api.api("runs") + "/" + enc(runId));
    ctx.out().println("id:          " + run.path("id").asText());
    ctx.out().println("workspace:   " + run.path("workspace").asText());
    ctx.out().println("status:      " + run.path("status").asText());
    ctx.out().println("created:     " + run.path("createdAt").asText());
    if (run.hasNonNull("planDigest")) {
      ctx.out().println("plan digest: " + run.path("planDigest").asText());
    }
    if (run.hasNonNull("traceId")) { // the run's trace in the operators' tracing (ADR 0083)
      ctx.out().println("trace:       " + run.path("traceId").asText());
    }
    if (run.path("awaitingApproval").asBoolean()) {
      ctx.out().println("approval:    waiting, until " + run.path("approvalExpiresAt").asText());
    } else if (run.hasNonNull("approvedBy")) {
      ctx.out()
          .println(
              "approved:    by "
                  + run.path("approvedBy").asText()
                  + " at "
                  + run.path("approvedAt").asText());
    }
    if (run.hasNonNull("message")) {
      ctx.out().println("message:     " + run.path("message").asText());
    }
    printSource(ctx, run);
    if (run.hasNonNull("planText")) {
      ctx.out().println();
      ctx.out().print(run.path("planText").asText());
      ctx.out().println();
    }
    if (run.path("awaitingApproval").asBoolean()) {
      ctx.err().println(RunApproval.howToDecide(runId, run));
    }
    return 0;
  }

  /**
   * Where the run's configuration came from (the commit of a git run) and each variable's origin,
   * as the run's record has them (docs/workspaces.md); never a value.
   */
  private static void printSource(CliContext ctx, JsonNode run) {
    JsonNode source = run.path("source");
    if (source.isObject()) {
      String kind = source.path("kind").asText();
      ctx.out()
          .println(
              "source:      "
                  + switch (kind) {
                    case "git" ->
                        "git "
                            + source.path("repository").asText()
                            + " "
                            + source.path("ref").asText("")
                            + " at commit "
                            + source.path("commit").asText("(not resolved)");
                    case "upload" ->
                        "configuration version " + source.path("configurationVersion").asText();
                    default -> kind;
                  });
    } else if (run.hasNonNull("configurationVersion")) {
      ctx.out()
          .println(
              "source:      configuration version " + run.path("configurationVersion").asText());
    }
    JsonNode variables = run.path("variableSources");
    if (variables.isArray() && !variables.isEmpty()) {
      ctx.out().println("variables:");
      for (JsonNode v : variables) {
        ctx.out()
            .println(
                "  "
                    + ("env".equals(v.path("category").asText()) ? "env " : "var.")
                    + v.path("key").asText()
                    + " from "
                    + v.path("source").asText()
                    + (v.path("sensitive").asBoolean() ? " (sensitive)" : ""));
      }
    }
  }

  /** The journal so far, without waiting (the long-poll endpoint with {@code wait=0}). */
  private static int logs(CliContext ctx, ApiClient api, String runId) throws Exception {
    JsonNode page = api.get(api.api("runs") + "/" + enc(runId) + "/events?after=0&wait=0");
    RunFollower printer = new RunFollower(ctx, api, true, false, RunApproval.NONE);
    for (JsonNode event : page.path("events")) {
      printer.print(event);
    }
    if (!page.path("terminal").asBoolean()) {
      ctx.out()
          .println("(run is " + page.path("status").asText() + "; add -follow to keep reading)");
      JsonNode run = RunApproval.read(api, runId);
      if (RunApproval.mayWait(run)) {
        ctx.err().println(RunApproval.howToDecide(runId, run));
      }
    }
    return 0;
  }

  /**
   * Approves the plan of a run that waits for approval: the plan with {@code digest} when given
   * (refused by the server when that is not the run's plan), else the plan the run shows.
   */
  private static int approve(CliContext ctx, ApiClient api, String runId, String digest)
      throws Exception {
    if (digest == null) {
      JsonNode run = RunApproval.read(api, runId);
      if (!RunApproval.mayWait(run)) {
        ctx.err()
            .println(
                "Error: run "
                    + runId
                    + " is not waiting for approval (it is "
                    + run.path("status").asText()
                    + ").");
        return 1;
      }
      digest = run.path("planDigest").asText();
    }
    RunApproval.approve(ctx, api, runId, digest);
    ctx.out()
        .println(
            "Approved plan "
                + digest
                + " of run "
                + runId
                + "; it applies now. Follow it with: stagecraft runs logs "
                + runId
                + " -follow");
    return 0;
  }

  private static int discard(CliContext ctx, ApiClient api, String runId) throws Exception {
    RunApproval.discard(ctx, api, runId);
    ctx.out().println("Discarded run " + runId + "; nothing was applied, the workspace is free.");
    return 0;
  }

  private String name() {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** An ISO-8601 time to the second ({@code 2026-11-29T06:05:04Z}), as a list shows it. */
  static String toSeconds(String iso) {
    try {
      return Instant.parse(iso).truncatedTo(ChronoUnit.SECONDS).toString();
    } catch (DateTimeParseException e) {
      return iso; // shown as the server wrote it
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    return line.length() > 80 ? line.substring(0, 77) + "..." : line;
  }

  @Override
  public String synopsis() {
    return switch (mode) {
      case LIST -> "runs list [-workspace=W] [-status=S]  The tenant's runs, newest first";
      case SHOW -> "runs show RUN_ID          A run: status, message, plan";
      case LOGS -> "runs logs RUN_ID [-follow]  A run's log; -follow streams it until the run ends";
      case APPROVE ->
          "runs approve RUN_ID [-digest=D]  Approve the plan of a run that waits for it";
      case DISCARD -> "runs discard RUN_ID       Discard a run that waits for approval";
    };
  }
}
