package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.planner.apply.Durations;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code stagecraft workspaces list|show|create|set}: the tenant's workspaces and their settings
 * (docs/runs.md): {@code -auto-apply=false} makes runs wait for approval, {@code -parallelism=N}
 * bounds the actions run at once, {@code -coalescing=true} lets a newer run replace one still
 * queued, {@code -step-timeout=30m} bounds every provisioner step without a {@code timeout} of its
 * own; the source options ({@link WorkspaceSource}) say where its configuration comes from, which
 * {@code show} prints. Creating and changing settings needs an admin token; a run creates its
 * workspace with the defaults when it does not exist.
 */
public final class WorkspacesCommand implements Command {
  /** Which of the four. */
  public enum Mode {
    LIST,
    SHOW,
    CREATE,
    SET
  }

  private final Mode mode;

  public WorkspacesCommand(Mode mode) {
    this.mode = mode;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    Map<String, Object> settings = new LinkedHashMap<>();
    WorkspaceSource source = new WorkspaceSource();
    List<String> positional = new ArrayList<>();
    for (String arg : args) {
      if (arg.startsWith("-") && (mode == Mode.CREATE || mode == Mode.SET)) {
        int eq = arg.indexOf('=');
        if (!source.accept(
            eq < 0 ? arg : arg.substring(0, eq), eq < 0 ? null : arg.substring(eq + 1))) {
          setting(arg, settings);
        }
      } else if (arg.startsWith("-")) {
        throw new UsageException("workspaces " + name() + " has no option " + arg);
      } else {
        positional.add(arg);
      }
    }
    if (mode == Mode.LIST ? !positional.isEmpty() : positional.size() != 1) {
      throw new UsageException(
          mode == Mode.LIST
              ? "workspaces list takes no arguments"
              : "workspaces " + name() + " needs exactly one workspace name");
    }
    if (mode == Mode.SET && settings.isEmpty() && source.isEmpty()) {
      throw new UsageException(
          "workspaces set needs a setting to change: "
              + SETTINGS
              + "; or a source: "
              + WorkspaceSource.USAGE);
    }
    Map<String, Object> sourceBody = source.isEmpty() ? null : source.body(ctx);
    ApiClient api = Server.client(ctx);
    try {
      switch (mode) {
        case LIST -> list(ctx, api);
        case SHOW -> {
          print(ctx, api.get(url(api, positional.getFirst())));
          printSource(ctx, api, positional.getFirst());
        }
        case CREATE -> {
          settings.put("name", positional.getFirst());
          print(ctx, api.post(api.api("workspaces"), settings));
          putSource(ctx, api, positional.getFirst(), sourceBody);
        }
        case SET -> {
          if (!settings.isEmpty()) {
            print(ctx, api.patch(url(api, positional.getFirst()), settings));
          }
          putSource(ctx, api, positional.getFirst(), sourceBody);
        }
      }
      return 0;
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  /** One {@code -name=value} setting of create and set, checked here so nothing is sent wrong. */
  private static void setting(String arg, Map<String, Object> settings) {
    int eq = arg.indexOf('=');
    String option = eq < 0 ? arg : arg.substring(0, eq);
    String value = eq < 0 ? null : arg.substring(eq + 1);
    switch (option) {
      case "-auto-apply" -> settings.put("autoApply", bool(option, value));
      case "-coalescing" -> settings.put("coalescing", bool(option, value));
      case "-step-timeout" -> {
        long seconds = Durations.seconds(value).orElse(0);
        if (seconds < 1 || seconds > 86_400) {
          throw new UsageException(
              "-step-timeout needs a duration from 1s to 24h, e.g. -step-timeout=30m; got "
                  + value);
        }
        settings.put("stepTimeoutSeconds", seconds);
      }
      case "-parallelism" -> {
        try {
          settings.put("parallelism", Integer.parseInt(value == null ? "" : value));
        } catch (NumberFormatException e) {
          throw new UsageException("-parallelism needs a whole number, e.g. -parallelism=4");
        }
      }
      default -> throw new UsageException("unknown setting " + arg + ": use " + SETTINGS);
    }
  }

  private static final String SETTINGS =
      "-auto-apply=true|false, -parallelism=N, -coalescing=true|false or -step-timeout=DURATION";

  private static boolean bool(String option, String value) {
    if ("true".equals(value) || "false".equals(value)) {
      return Boolean.parseBoolean(value);
    }
    throw new UsageException(option + " takes true or false, e.g. " + option + "=false");
  }

  private static void list(CliContext ctx, ApiClient api) throws Exception {
    JsonNode workspaces = api.get(api.api("workspaces")).path("workspaces");
    if (workspaces.isEmpty()) {
      ctx.out().println("No workspaces.");
      return;
    }
    ctx.out()
        .printf(
            "%-32s %-10s %-11s %-10s %s%n",
            "NAME", "AUTO-APPLY", "PARALLELISM", "COALESCING", "STEP-TIMEOUT");
    for (JsonNode ws : workspaces) {
      ctx.out()
          .printf(
              "%-32s %-10s %-11s %-10s %s%n",
              ws.path("name").asText(),
              ws.path("autoApply").asBoolean(),
              ws.path("parallelism").asInt(),
              ws.path("coalescing").asBoolean(),
              duration(ws.path("stepTimeoutSeconds").asInt()));
    }
  }

  private static void print(CliContext ctx, JsonNode ws) {
    ctx.out().println("name:        " + ws.path("name").asText());
    ctx.out()
        .println(
            "auto-apply:  "
                + ws.path("autoApply").asBoolean()
                + (ws.path("autoApply").asBoolean() ? "" : " (runs wait for approval)"));
    ctx.out().println("parallelism: " + ws.path("parallelism").asInt());
    ctx.out().println("coalescing:  " + ws.path("coalescing").asBoolean());
    ctx.out()
        .println(
            "step timeout: "
                + duration(ws.path("stepTimeoutSeconds").asInt())
                + " (for steps without a timeout of their own)");
    ctx.out().println("created:     " + RunsCommand.toSeconds(ws.path("createdAt").asText()));
  }

  /** Sets the workspace's configuration source when one was given, and prints it. */
  private static void putSource(
      CliContext ctx, ApiClient api, String workspace, Map<String, Object> body) throws Exception {
    if (body != null) {
      WorkspaceSource.print(ctx, api.put(url(api, workspace) + "/source", body));
    }
  }

  /** The workspace's configuration source; nothing from a planner that has none to say (404). */
  private static void printSource(CliContext ctx, ApiClient api, String workspace)
      throws Exception {
    JsonNode source;
    try {
      source = api.get(url(api, workspace) + "/source");
    } catch (ApiClient.ApiException e) {
      if (e.status() == 404) {
        return;
      }
      throw e;
    }
    if (source != null) {
      WorkspaceSource.print(ctx, source);
    }
  }

  /** {@code 1h}, {@code 30m}, {@code 90s}: as {@code -step-timeout} takes it. */
  static String duration(int seconds) {
    if (seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
  }

  private static String url(ApiClient api, String workspace) throws Exception {
    return api.api("workspaces") + "/" + URLEncoder.encode(workspace, StandardCharsets.UTF_8);
  }

  private String name() {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String synopsis() {
    return switch (mode) {
      case LIST -> "workspaces list          The tenant's workspaces and their settings";
      case SHOW -> "workspaces show NAME     A workspace's settings";
      case CREATE ->
          "workspaces create NAME [-auto-apply=B] [-parallelism=N] [-coalescing=B]"
              + " [-step-timeout=D] [SOURCE]  A workspace";
      case SET ->
          "workspaces set NAME [-auto-apply=B] [-parallelism=N] [-coalescing=B]"
              + " [-step-timeout=D] [SOURCE]  Change settings; SOURCE: "
              + WorkspaceSource.USAGE;
    };
  }
}
