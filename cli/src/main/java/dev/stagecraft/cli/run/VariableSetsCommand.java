package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code stagecraft variable-sets ...}: the tenant's variable sets (ADR 0078): {@code list}, {@code
 * show NAME}, {@code create NAME [-description=D] [-global]}, {@code delete NAME}, {@code set NAME
 * KEY VALUE [-sensitive] [-env] [-hcl] [-description=D]}, {@code unset NAME KEY [-env]}, {@code
 * attach|detach NAME WORKSPACE} and {@code history NAME}. A sensitive value is never printed.
 * Managing sets needs an admin token.
 */
public final class VariableSetsCommand implements Command {
  /** Which of the nine. */
  public enum Mode {
    LIST(0, Set.of()),
    SHOW(1, Set.of()),
    CREATE(1, Set.of("description", "global")),
    DELETE(1, Set.of()),
    SET(3, Set.of("sensitive", "env", "hcl", "description")),
    UNSET(2, Set.of("env")),
    ATTACH(2, Set.of()),
    DETACH(2, Set.of()),
    HISTORY(1, Set.of());

    private final int arguments;
    private final Set<String> options;

    Mode(int arguments, Set<String> options) {
      this.arguments = arguments;
      this.options = options;
    }
  }

  private final Mode mode;

  public VariableSetsCommand(Mode mode) {
    this.mode = mode;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    VariableArgs a = VariableArgs.parse("variable-sets " + name(), args, mode.options);
    if (a.positional.size() != mode.arguments) {
      throw new UsageException("variable-sets " + name() + " takes " + arguments());
    }
    ApiClient api = Server.client(ctx);
    try {
      String sets = VariableArgs.variableSetsApi(api);
      String set =
          mode == Mode.LIST ? null : sets + "/" + VariableArgs.segment(a.positional.get(0));
      switch (mode) {
        case LIST -> list(ctx, api.get(sets));
        case SHOW -> show(ctx, api.get(set));
        case CREATE -> {
          Map<String, Object> body = new LinkedHashMap<>();
          body.put("name", a.positional.get(0));
          body.put("description", a.description == null ? "" : a.description);
          body.put("global", a.global);
          show(ctx, api.post(sets, body));
        }
        case DELETE -> {
          api.delete(set);
          ctx.out().println("Deleted the variable set " + a.positional.get(0) + ".");
        }
        case SET -> {
          String key = a.positional.get(1);
          JsonNode answer =
              api.put(
                  set + "/variables/" + VariableArgs.segment(key),
                  a.body(ctx, a.positional.get(2)));
          ctx.out()
              .println(
                  "Set the "
                      + a.kind()
                      + " "
                      + key
                      + " of variable set "
                      + a.positional.get(0)
                      + VariablesCommand.version(answer)
                      + ".");
        }
        case UNSET -> {
          String key = a.positional.get(1);
          api.delete(set + "/variables/" + VariableArgs.segment(key) + "?category=" + a.category());
          ctx.out()
              .println(
                  "Unset the "
                      + a.kind()
                      + " "
                      + key
                      + " of variable set "
                      + a.positional.get(0)
                      + ".");
        }
        case ATTACH, DETACH -> attachment(ctx, api, set, a.positional);
        case HISTORY -> VariableArgs.printHistory(ctx, api.get(set + "/history").path("changes"));
      }
      return 0;
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  private void attachment(CliContext ctx, ApiClient api, String set, List<String> names)
      throws IOException, InterruptedException {
    String url = set + "/workspaces/" + VariableArgs.segment(names.get(1));
    if (mode == Mode.ATTACH) {
      api.put(url, Map.of());
      ctx.out()
          .println(
              "Attached the variable set " + names.get(0) + " to workspace " + names.get(1) + ".");
    } else {
      api.delete(url);
      ctx.out()
          .println(
              "Detached the variable set "
                  + names.get(0)
                  + " from workspace "
                  + names.get(1)
                  + ".");
    }
  }

  private static void list(CliContext ctx, JsonNode answer) {
    JsonNode sets = sets(answer);
    if (sets.isEmpty()) {
      ctx.out().println("No variable sets.");
      return;
    }
    String format = "%-28s %-7s %-9s %s%n";
    ctx.out().printf(format, "NAME", "GLOBAL", "VARIABLES", "WORKSPACES");
    for (JsonNode s : sets) {
      ctx.out()
          .printf(
              format,
              s.path("name").asText(),
              s.path("global").asBoolean() ? "yes" : "no",
              s.has("variables") ? String.valueOf(s.path("variables").size()) : "-",
              s.path("global").asBoolean() ? "(all)" : names(s.path("workspaces")));
    }
  }

  /** The list of sets: the answer itself when an array, else its first array field. */
  private static JsonNode sets(JsonNode answer) {
    if (answer == null || answer.isArray()) {
      return answer == null ? MissingNode.getInstance() : answer;
    }
    for (JsonNode field : answer) {
      if (field.isArray()) {
        return field;
      }
    }
    return answer.path("variableSets");
  }

  private static String names(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out.isEmpty() ? "(none)" : String.join(", ", out);
  }

  private static void show(CliContext ctx, JsonNode set) {
    ctx.out().println("name:        " + set.path("name").asText());
    if (!set.path("description").asText().isEmpty()) {
      ctx.out().println("description: " + set.path("description").asText());
    }
    ctx.out()
        .println(
            "applies to:  "
                + (set.path("global").asBoolean()
                    ? "every workspace (global)"
                    : names(set.path("workspaces"))));
    ctx.out().println("version:     " + set.path("version").asText("0"));
    VariableArgs.printVariables(ctx, set.path("variables"));
  }

  private String arguments() {
    return switch (mode) {
      case LIST -> "no arguments";
      case SHOW, CREATE, DELETE, HISTORY -> "exactly one set NAME";
      case SET -> "a set NAME, a KEY and a VALUE (@path reads a file, - standard input)";
      case UNSET -> "a set NAME and a KEY";
      case ATTACH, DETACH -> "a set NAME and a WORKSPACE";
    };
  }

  private String name() {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String synopsis() {
    String prefix = "variable-sets " + name();
    return switch (mode) {
      case LIST -> prefix + "  The tenant's variable sets";
      case SHOW -> prefix + " NAME  A set: its workspaces and variables (no sensitive value)";
      case CREATE -> prefix + " NAME [-description=D] [-global]  A variable set";
      case DELETE -> prefix + " NAME  Delete a variable set";
      case SET ->
          prefix
              + " NAME KEY VALUE|@FILE|- [-sensitive] [-env] [-hcl] [-description=D]  Store a"
              + " variable in a set";
      case UNSET -> prefix + " NAME KEY [-env]  Remove a variable from a set";
      case ATTACH -> prefix + " NAME WORKSPACE  Apply a set to a workspace";
      case DETACH -> prefix + " NAME WORKSPACE  Stop applying a set to a workspace";
      case HISTORY -> prefix + " NAME  Who changed which variable of a set, when";
    };
  }
}
