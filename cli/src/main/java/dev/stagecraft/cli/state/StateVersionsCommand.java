package dev.stagecraft.cli.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.run.ApiClient;
import dev.stagecraft.cli.stack.StackLocator;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state version commands:
 *
 * <ul>
 *   <li>{@code state versions}: every version (serial, time, what made it, run, actor, digest);
 *   <li>{@code state diff A B}: what changed from version A to B (sensitive values masked);
 *   <li>{@code state rollback SERIAL [-lock-id=ID]}: writes version SERIAL again with the next
 *       serial;
 *   <li>{@code state push [-force] [-lock-id=ID] FILE}: uploads a Terraform v4 state file, refused
 *       when its lineage differs or its serial is lower than the stored one unless {@code -force}
 *       ({@code -} reads standard input).
 * </ul>
 *
 * <p>Rollback and push write under the workspace lock, as Terraform's {@code state push} does:
 * without {@code -lock-id} the command takes the lock itself (never waiting: a locked workspace is
 * an error naming the holder) and releases it when done; with {@code -lock-id} it writes under a
 * lock the caller already holds (say, one taken over the HTTP backend).
 */
public final class StateVersionsCommand implements Command {
  /** Which subcommand. */
  public enum Mode {
    VERSIONS,
    DIFF,
    ROLLBACK,
    PUSH
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Mode mode;

  public StateVersionsCommand(Mode mode) {
    this.mode = mode;
  }

  /** The parsed arguments: {@code -force}, {@code -lock-id}, the workspace and the positionals. */
  private record Arguments(
      boolean force, String lockId, String workspace, List<String> positional) {}

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    Arguments parsed = parse(args);
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    ApiClient api = new ApiClient(target.address().toString(), target.token());
    String base = api.api("state") + "/workspaces/" + encode(parsed.workspace());
    try {
      List<String> positional = parsed.positional();
      switch (mode) {
        case VERSIONS -> printVersions(ctx, api.get(base + "/state/versions"));
        case DIFF ->
            printDiff(
                ctx,
                api.get(
                    base + "/state/diff?from=" + positional.get(0) + "&to=" + positional.get(1)));
        case ROLLBACK -> rollback(ctx, api, base, parsed);
        case PUSH -> push(ctx, api, base, parsed);
      }
    } catch (ApiClient.ApiException e) {
      printApiError(ctx, e);
      return 1;
    }
    return 0;
  }

  /** The options this mode takes, then the workspace and as many positionals as it needs. */
  private Arguments parse(List<String> args) {
    boolean force = false;
    String lockId = null;
    List<String> rest = new ArrayList<>();
    for (String a : args) {
      if (mode == Mode.PUSH && a.equals("-force")) {
        force = true;
      } else if ((mode == Mode.PUSH || mode == Mode.ROLLBACK) && a.startsWith("-lock-id=")) {
        lockId = a.substring("-lock-id=".length());
      } else {
        rest.add(a);
      }
    }
    WorkspaceArgs parsed = WorkspaceArgs.parse(rest);
    List<String> positional = parsed.positional();
    int wanted =
        switch (mode) {
          case VERSIONS -> 0;
          case DIFF -> 2;
          case ROLLBACK, PUSH -> 1;
        };
    if (positional.size() != wanted) {
      throw new UsageException("expected " + wanted + " argument(s), got " + positional.size());
    }
    if (mode == Mode.DIFF || mode == Mode.ROLLBACK) {
      for (String p : positional) {
        if (!p.matches("\\d+")) {
          throw new UsageException("'" + p + "' is not a state serial (see state versions)");
        }
      }
    }
    return new Arguments(force, lockId, parsed.workspace(), positional);
  }

  private static void rollback(CliContext ctx, ApiClient api, String base, Arguments parsed)
      throws Exception {
    long serial = Long.parseLong(parsed.positional().get(0));
    JsonNode result =
        underLock(
            api,
            base,
            parsed.lockId(),
            "stagecraft-rollback",
            id -> api.post(base + "/state/rollback", Map.of("serial", serial, "lockId", id)));
    ctx.out()
        .println(
            "Rolled back to version "
                + serial
                + ": the state is now serial "
                + result.path("serial").asLong()
                + ".");
  }

  private static void push(CliContext ctx, ApiClient api, String base, Arguments parsed)
      throws Exception {
    String file = parsed.positional().get(0);
    byte[] document =
        file.equals("-")
            ? ctx.in().lines().reduce("", (a, b) -> a + b + "\n").getBytes(StandardCharsets.UTF_8)
            : Files.readAllBytes(ctx.workingDir().resolve(Path.of(file)));
    JsonNode result =
        underLock(
            api,
            base,
            parsed.lockId(),
            "stagecraft-state-push",
            id ->
                api.postDocument(
                    base + "/state?lockId=" + encode(id) + (parsed.force() ? "&force=true" : ""),
                    document));
    ctx.out().println("Pushed: the state is now serial " + result.path("serial").asLong() + ".");
  }

  /** The server's problem, its diagnostics, and the holder when the workspace is locked. */
  private static void printApiError(CliContext ctx, ApiClient.ApiException e) {
    ctx.err().println(ErrorLine.of(e.getMessage()));
    if (e.body() != null && e.body().has("diagnostics")) {
      for (JsonNode d : e.body().get("diagnostics")) {
        ctx.err().println("  " + d.asText());
      }
    }
    if (e.status() == 423 && e.body() != null && e.body().has("ID")) {
      ctx.err()
          .println(
              "Error: the workspace is locked. Lock Info: ID "
                  + e.body().path("ID").asText()
                  + ", who "
                  + e.body().path("Who").asText()
                  + ", operation "
                  + e.body().path("Operation").asText());
    }
  }

  /** A request made under the workspace lock. */
  private interface Locked {
    JsonNode call(String lockId) throws Exception;
  }

  private static JsonNode underLock(
      ApiClient api, String base, String lockId, String operation, Locked body) throws Exception {
    if (lockId != null) {
      return body.call(lockId);
    }
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("Operation", operation);
    info.put("Info", "stagecraft CLI");
    info.put("Version", "stagecraft");
    JsonNode lock = api.post(base + "/lock", info);
    String id = lock.path("ID").asText();
    try {
      return body.call(id);
    } finally {
      api.delete(base + "/lock/" + encode(id));
    }
  }

  private static void printVersions(CliContext ctx, JsonNode versions) {
    ctx.out()
        .printf(
            "%-8s %-27s %-18s %-22s %-24s %s%n",
            "SERIAL", "TIME", "CHANGE", "RUN", "ACTOR", "DIGEST");
    for (JsonNode v : versions) {
      ctx.out()
          .printf(
              "%-8d %-27s %-18s %-22s %-24s %s%n",
              v.path("serial").asLong(),
              v.path("time").asText(),
              v.path("type").asText(),
              v.path("runId").isNull() ? "-" : v.path("runId").asText(),
              v.path("actor").isNull() ? "-" : v.path("actor").asText(),
              v.path("digest").asText());
    }
  }

  private static void printDiff(CliContext ctx, JsonNode diff) throws Exception {
    ctx.out()
        .println(
            "Changes from serial "
                + diff.path("from").asText()
                + " to "
                + diff.path("to").asText()
                + ":");
    if (diff.path("instances").isEmpty() && diff.path("outputs").isEmpty()) {
      ctx.out().println("  (none)");
    }
    for (JsonNode i : diff.path("instances")) {
      String change = i.path("change").asText();
      String sign =
          switch (change) {
            case "added" -> "+";
            case "removed" -> "-";
            default -> "~";
          };
      ctx.out().println(sign + " " + i.path("address").asText() + " (" + change + ")");
      for (JsonNode a : i.path("attributes")) {
        ctx.out()
            .println(
                "    "
                    + a.path("name").asText()
                    + ": "
                    + JSON.writeValueAsString(a.get("before"))
                    + " -> "
                    + JSON.writeValueAsString(a.get("after")));
      }
      for (JsonNode f : i.path("fields")) {
        ctx.out().println("    (" + f.asText() + " changed)");
      }
    }
    for (JsonNode o : diff.path("outputs")) {
      ctx.out()
          .println(
              "  output "
                  + o.path("name").asText()
                  + " ("
                  + o.path("change").asText()
                  + "): "
                  + JSON.writeValueAsString(o.get("before"))
                  + " -> "
                  + JSON.writeValueAsString(o.get("after")));
    }
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public String synopsis() {
    return switch (mode) {
      case VERSIONS -> "state versions           List the state's versions";
      case DIFF -> "state diff A B           Show what changed between versions A and B";
      case ROLLBACK ->
          "state rollback SERIAL [-lock-id=ID]  Write version SERIAL again as the newest";
      case PUSH -> "state push [-force] [-lock-id=ID] FILE  Upload a Terraform v4 state file";
    };
  }
}
