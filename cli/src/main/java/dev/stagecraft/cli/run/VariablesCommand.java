package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code stagecraft variables list|set|unset|history [-workspace=W]}: a workspace's stored
 * Terraform and environment variables on the planner (ADR 0078). {@code set KEY VALUE [-sensitive]
 * [-env] [-hcl] [-description=D]} stores one ({@code @path}: a file's content, {@code -}: standard
 * input); a sensitive value is write-only and never printed. {@code unset KEY [-env]} removes one;
 * {@code history} lists the changes (who, when, never a value).
 */
public final class VariablesCommand implements Command {
  /** Which of the four. */
  public enum Mode {
    LIST,
    SET,
    UNSET,
    HISTORY
  }

  private final Mode mode;

  public VariablesCommand(Mode mode) {
    this.mode = mode;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    VariableArgs a =
        VariableArgs.parse(
            "variables " + name(),
            args,
            switch (mode) {
              case SET -> Set.of("workspace", "sensitive", "env", "hcl", "description");
              case UNSET -> Set.of("workspace", "env");
              case LIST, HISTORY -> Set.of("workspace");
            });
    int expected =
        switch (mode) {
          case SET -> 2;
          case UNSET -> 1;
          case LIST, HISTORY -> 0;
        };
    if (a.positional.size() != expected) {
      throw new UsageException(
          switch (mode) {
            case SET ->
                "variables set needs a KEY and a VALUE (@path reads a file, - standard input)";
            case UNSET -> "variables unset needs exactly one KEY";
            case LIST, HISTORY -> "variables " + name() + " takes no arguments, only -workspace=W";
          });
    }
    ApiClient api = Server.client(ctx);
    try {
      String url = variablesUrl(api, a.workspace);
      switch (mode) {
        case LIST -> {
          JsonNode answer = api.get(url);
          ctx.out()
              .println(
                  "Variables of workspace "
                      + a.workspace
                      + " (version "
                      + answer.path("version").asText("0")
                      + "):");
          VariableArgs.printVariables(ctx, answer.path("variables"));
        }
        case SET -> set(ctx, api, url, a);
        case UNSET -> {
          String key = a.positional.getFirst();
          api.delete(url + "/" + VariableArgs.segment(key) + "?category=" + a.category());
          ctx.out()
              .println("Unset the " + a.kind() + " " + key + " of workspace " + a.workspace + ".");
        }
        case HISTORY -> VariableArgs.printHistory(ctx, api.get(url + "/history").path("changes"));
      }
      return 0;
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  private static void set(CliContext ctx, ApiClient api, String url, VariableArgs a)
      throws IOException, InterruptedException {
    String key = a.positional.getFirst();
    JsonNode answer =
        api.put(url + "/" + VariableArgs.segment(key), a.body(ctx, a.positional.get(1)));
    ctx.out()
        .println(
            "Set the "
                + a.kind()
                + " "
                + key
                + " of workspace "
                + a.workspace
                + version(answer)
                + ".");
  }

  /** {@code " (variables version N)"} when the answer says it. */
  static String version(JsonNode answer) {
    return answer != null && answer.hasNonNull("version")
        ? " (variables version " + answer.get("version").asText() + ")"
        : "";
  }

  private static String variablesUrl(ApiClient api, String workspace)
      throws IOException, InterruptedException {
    return api.api("workspaces") + "/" + VariableArgs.segment(workspace) + "/variables";
  }

  private String name() {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String synopsis() {
    return switch (mode) {
      case LIST ->
          "variables list [-workspace=W]  A workspace's stored variables (no sensitive value)";
      case SET ->
          "variables set KEY VALUE|@FILE|- [-sensitive] [-env] [-hcl] [-description=D]"
              + " [-workspace=W]  Store a variable";
      case UNSET -> "variables unset KEY [-env] [-workspace=W]  Remove a stored variable";
      case HISTORY -> "variables history [-workspace=W]  Who changed which variable, when";
    };
  }
}
