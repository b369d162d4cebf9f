package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft runs start WORKSPACE [-var K=V]... [-message=M] [-ref=R | -commit=C]}: the
 * one-line run (ADR 0078). Only the workspace and these options are sent; the configuration, the
 * stored variables and the git source come from the workspace. The run is then followed as {@code
 * apply} follows its run (Ctrl-C cancels it); a run that waits for approval is left waiting, with
 * how to approve or discard it.
 */
public final class RunStartCommand implements Command {
  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    Map<String, String> variables = new LinkedHashMap<>();
    Map<String, Object> body = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("-")) {
        positional.add(arg);
        continue;
      }
      int eq = arg.indexOf('=');
      String name = (eq < 0 ? arg : arg.substring(0, eq)).replaceFirst("^--?", "");
      String value = eq < 0 ? null : arg.substring(eq + 1);
      if (!List.of("var", "message", "ref", "commit").contains(name)) {
        throw new UsageException("runs start has no option " + arg);
      }
      if (value == null) {
        if (i + 1 >= args.size()) {
          throw new UsageException("-" + name + " needs a value");
        }
        value = args.get(++i);
      }
      if (name.equals("var")) {
        int split = value.indexOf('=');
        if (split <= 0) {
          throw new UsageException(
              "-var expects NAME=VALUE (for example -var 'rev=abc123'), got \"" + value + "\"");
        }
        variables.put(value.substring(0, split), value.substring(split + 1));
      } else {
        body.put(name, value);
      }
    }
    if (positional.size() != 1) {
      throw new UsageException("runs start needs exactly one WORKSPACE");
    }
    if (body.containsKey("ref") && body.containsKey("commit")) {
      throw new UsageException("give -ref or -commit, not both");
    }
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("workspace", positional.getFirst());
    if (!variables.isEmpty()) {
      request.put("variables", variables);
    }
    request.putAll(body);
    ApiClient api = Server.client(ctx);
    try {
      JsonNode run = api.post(api.api("runs"), request);
      String id = run.get("id").asText();
      ctx.out().println("Started run " + id + " of workspace " + positional.getFirst() + ".");
      return new RunFollower(ctx, api, true, RunApproval.NONE).follow(id);
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  @Override
  public String synopsis() {
    return "runs start WORKSPACE [-var K=V]... [-message=M] [-ref=R | -commit=C]  Run the"
        + " workspace's own configuration and follow it";
  }
}
