package dev.stagecraft.cli.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.run.ApiClient;
import dev.stagecraft.cli.stack.StackLocator;
import dev.stagecraft.planner.plan.InstanceKey;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code stagecraft state list|show ADDR|pull}: reads the workspace's state. */
public final class StateCommand implements Command {
  /** Which state subcommand. */
  public enum Mode {
    LIST,
    SHOW,
    PULL
  }

  private static final ObjectMapper PRETTY =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private final Mode mode;

  public StateCommand(Mode mode) {
    this.mode = mode;
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    String version = null;
    List<String> rest = new ArrayList<>();
    for (String a : args) {
      if (mode == Mode.PULL && a.startsWith("-version=")) {
        version = a.substring("-version=".length());
        if (!version.matches("\\d+")) {
          throw new UsageException(
              "-version must be a state serial (see stagecraft state versions)");
        }
      } else {
        rest.add(a);
      }
    }
    WorkspaceArgs parsed = WorkspaceArgs.parse(rest);
    String workspace = parsed.workspace();
    List<String> positional = parsed.positional();
    if (mode == Mode.SHOW && positional.size() != 1) {
      throw new UsageException("state show needs exactly one address");
    }
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    ApiClient api = new ApiClient(target.address().toString(), target.token());
    JsonNode state;
    try {
      state =
          api.getOrNull(
              api.api("state")
                  + "/workspaces/"
                  + URLEncoder.encode(workspace, StandardCharsets.UTF_8)
                  + "/state"
                  + (version == null ? "" : "/versions/" + version));
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
    switch (mode) {
      case PULL -> {
        if (state != null) {
          ctx.out().println(PRETTY.writeValueAsString(state));
        }
        return 0;
      }
      case LIST -> {
        instances(state).keySet().forEach(ctx.out()::println);
        return 0;
      }
      default -> {
        String address = positional.get(0);
        JsonNode instance = instances(state).get(address);
        if (instance == null) {
          ctx.err().println("Error: No instance found for the given address " + address + ".");
          return 1;
        }
        printInstance(ctx, address, instance);
        return 0;
      }
    }
  }

  /** Instances by address, in state order. */
  static Map<String, JsonNode> instances(JsonNode state) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    if (state == null) {
      return out;
    }
    for (JsonNode resource : state.path("resources")) {
      String module = resource.hasNonNull("module") ? resource.path("module").asText() + "." : "";
      String base = module + resource.path("type").asText() + "." + resource.path("name").asText();
      for (JsonNode instance : resource.path("instances")) {
        JsonNode key = instance.get("index_key");
        String suffix =
            key == null || key.isNull()
                ? ""
                : key.isNumber()
                    ? "[" + key.asText() + "]"
                    : "[\"" + key.asText().replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
        out.put(base + suffix, instance);
      }
    }
    return out;
  }

  private static void printInstance(CliContext ctx, String address, JsonNode instance)
      throws Exception {
    // type.name are the last two parts of the resource's address (after any module path)
    String resource = InstanceKey.resourceOf(address);
    int dot = resource.lastIndexOf('.');
    String type = resource.substring(resource.lastIndexOf('.', dot - 1) + 1, dot);
    String name = resource.substring(dot + 1);
    ctx.out().println("# " + address + ":");
    ctx.out()
        .println(
            "resource \""
                + type
                + "\" \""
                + name
                + "\" {"
                + ("tainted".equals(instance.path("status").asText()) ? " # tainted" : ""));
    JsonNode attributes = instance.path("attributes");
    // attributes Terraform marks sensitive, and those holding values the planner sealed
    // (docs/adr/0024), are shown as Terraform shows them: (sensitive value)
    Set<String> sensitive = new HashSet<>();
    for (JsonNode path : instance.path("sensitive_attributes")) {
      JsonNode first = path.isArray() ? path.path(0) : path;
      if (first.path("value").isTextual()) {
        sensitive.add(first.path("value").asText());
      }
    }
    int width = 0;
    for (Iterator<String> it = attributes.fieldNames(); it.hasNext(); ) {
      width = Math.max(width, it.next().length());
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = attributes.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isNull()) {
        continue;
      }
      ctx.out()
          .println(
              "    "
                  + e.getKey()
                  + " ".repeat(width - e.getKey().length())
                  + " = "
                  + (sensitive.contains(e.getKey()) || holdsSealed(e.getValue())
                      ? "(sensitive value)"
                      : PRETTY.writeValueAsString(e.getValue()).replace("\n", "\n    ")));
    }
    ctx.out().println("}");
  }

  private static boolean holdsSealed(JsonNode value) {
    if (value.isTextual()) {
      return value.asText().startsWith("stagecraft:sealed:");
    }
    for (JsonNode child : value) {
      if (holdsSealed(child)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String synopsis() {
    return switch (mode) {
      case LIST -> "state list               List the instances in the workspace's state";
      case SHOW -> "state show ADDR          Show one instance's attributes";
      case PULL ->
          "state pull [-version=N]  Print the state, or version N of it (Terraform v4 JSON)";
    };
  }
}
