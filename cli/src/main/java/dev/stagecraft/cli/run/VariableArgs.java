package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code variables} and {@code variable-sets} share (ADR 0078): their options ({@code
 * -workspace=W}, {@code -sensitive}, {@code -env}, {@code -hcl}, {@code -description=D}, {@code
 * -global}; {@code --} ends the options, {@code -} alone is a value), a value read from
 * {@code @path} or standard input, and the tables they print. A sensitive value is never printed,
 * whatever the server answers.
 */
final class VariableArgs {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Values longer than this are cut in tables. */
  static final int SHOWN_VALUE_LENGTH = 60;

  String workspace = "default";
  boolean sensitive;
  boolean env;
  boolean hcl;
  boolean global;
  String description;
  final List<String> positional = new ArrayList<>();

  /**
   * Parses {@code args}: only the options in {@code allowed} (by name without the dash) are
   * accepted, anything else starting with a dash is a usage error of {@code command}.
   */
  static VariableArgs parse(String command, List<String> args, Set<String> allowed) {
    VariableArgs out = new VariableArgs();
    boolean options = true;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (options && arg.equals("--")) {
        options = false;
        continue;
      }
      if (!options || !arg.startsWith("-") || arg.equals("-")) {
        out.positional.add(arg);
        continue;
      }
      int eq = arg.indexOf('=');
      String name = (eq < 0 ? arg : arg.substring(0, eq)).replaceFirst("^--?", "");
      String value = eq < 0 ? null : arg.substring(eq + 1);
      if (!allowed.contains(name)) {
        throw new UsageException(command + " has no option " + arg);
      }
      switch (name) {
        case "workspace", "description" -> {
          if (value == null) {
            if (i + 1 >= args.size()) {
              throw new UsageException("-" + name + " needs a value");
            }
            value = args.get(++i);
          }
          if (name.equals("workspace")) {
            out.workspace = value;
          } else {
            out.description = value;
          }
        }
        case "sensitive" -> out.sensitive = flag(arg, value);
        case "env" -> out.env = flag(arg, value);
        case "hcl" -> out.hcl = flag(arg, value);
        default -> out.global = flag(arg, value);
      }
    }
    return out;
  }

  private static boolean flag(String arg, String value) {
    if (value == null || value.equals("true")) {
      return true;
    }
    if (value.equals("false")) {
      return false;
    }
    throw new UsageException(arg + ": a flag takes no value (or true|false)");
  }

  /** {@code terraform} or {@code env}. */
  String category() {
    return env ? "env" : "terraform";
  }

  /**
   * The request body of {@code PUT .../variables/KEY}: the value as {@link #readValue} reads it,
   * its category, whether it is HCL and sensitive, and the description when given.
   */
  Map<String, Object> body(CliContext ctx, String value) {
    if (env && hcl) {
      throw new UsageException("-hcl is for Terraform variables, not -env ones");
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("value", readValue(ctx, value, true));
    body.put("category", category());
    body.put("hcl", hcl);
    body.put("sensitive", sensitive);
    if (description != null) {
      body.put("description", description);
    }
    return body;
  }

  /**
   * A value as given on the command line: {@code @path} is the file's content (an SSH key: kept as
   * it is, final newline included), {@code -} is standard input (one line without its newline; more
   * lines kept as they are); anything else is the value itself. With {@code keepFileAsIs} false a
   * file's content loses its surrounding whitespace (a token file's final newline).
   */
  static String readValue(CliContext ctx, String value, boolean keepFileAsIs) {
    if (value.equals("-")) {
      return fromStdin(ctx);
    }
    if (!value.startsWith("@")) {
      return value;
    }
    Path file = ctx.workingDir().resolve(value.substring(1));
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      return keepFileAsIs ? text : text.strip();
    } catch (IOException e) {
      throw new UsageException(
          "cannot read the value file "
              + file
              + " ("
              + e.getClass().getSimpleName()
              + "): give @PATH of a readable file");
    }
  }

  private static String fromStdin(CliContext ctx) {
    StringBuilder text = new StringBuilder();
    try {
      if (ctx.in() != null) {
        char[] buffer = new char[8192];
        for (int n = ctx.in().read(buffer); n >= 0; n = ctx.in().read(buffer)) {
          text.append(buffer, 0, n);
        }
      }
    } catch (IOException e) {
      throw new UsageException("cannot read the value from standard input: " + e.getMessage());
    }
    String s = text.toString();
    String line =
        s.endsWith("\r\n")
            ? s.substring(0, s.length() - 2)
            : s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    return line.contains("\n") ? s : line;
  }

  /** A path segment (a workspace, set or key name). */
  static String segment(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The variable-sets API: beside the workspaces API on the planner ({@code /api/v1}). */
  static String variableSetsApi(ApiClient api) throws IOException, InterruptedException {
    String workspaces = api.api("workspaces");
    return workspaces.substring(0, workspaces.lastIndexOf('/')) + "/variable-sets";
  }

  /** The variables of a workspace or a set as a table; sensitive values never shown. */
  static void printVariables(CliContext ctx, JsonNode variables) {
    if (variables.isEmpty()) {
      ctx.out().println("No variables.");
      return;
    }
    String format = "%-28s %-10s %-9s %s%n";
    ctx.out().printf(format, "KEY", "CATEGORY", "SENSITIVE", "VALUE");
    for (JsonNode v : variables) {
      ctx.out()
          .printf(
              format,
              v.path("key").asText(),
              v.path("category").asText("terraform"),
              v.path("sensitive").asBoolean() ? "yes" : "no",
              shown(v));
    }
  }

  /**
   * What a table shows of a variable's value: never a sensitive one; an HCL value as its text, a
   * string quoted; long values cut.
   */
  static String shown(JsonNode v) {
    if (v.path("sensitive").asBoolean()) {
      return "(sensitive)";
    }
    JsonNode value = v.get("value");
    if (value == null || value.isNull()) {
      return "(hidden)";
    }
    String text;
    try {
      text =
          v.path("hcl").asBoolean()
              ? value.asText().replace("\n", "\\n")
              : MAPPER.writeValueAsString(value.asText());
    } catch (IOException e) {
      text = value.asText();
    }
    String hcl = v.path("hcl").asBoolean() ? " (hcl)" : "";
    return (text.length() > SHOWN_VALUE_LENGTH
            ? text.substring(0, SHOWN_VALUE_LENGTH - 3) + "..."
            : text)
        + hcl;
  }

  /** The audit history of a workspace's or a set's variables (never a value). */
  static void printHistory(CliContext ctx, JsonNode changes) {
    if (changes.isEmpty()) {
      ctx.out().println("No changes.");
      return;
    }
    String format = "%-8s %-21s %-24s %-6s %-28s %-10s %s%n";
    ctx.out().printf(format, "VERSION", "AT", "BY", "CHANGE", "KEY", "CATEGORY", "SENSITIVE");
    for (JsonNode c : changes) {
      ctx.out()
          .printf(
              format,
              c.path("version").asText(),
              RunsCommand.toSeconds(c.path("at").asText()),
              c.path("by").asText(),
              c.path("change").asText(),
              c.path("key").asText(),
              c.path("category").asText("terraform"),
              c.path("sensitive").asBoolean() ? "yes" : "no");
    }
  }

  /** {@code "sensitive env variable"}, {@code "Terraform variable"}: how messages name one. */
  String kind() {
    return (sensitive ? "sensitive " : "") + (env ? "environment variable" : "Terraform variable");
  }
}
