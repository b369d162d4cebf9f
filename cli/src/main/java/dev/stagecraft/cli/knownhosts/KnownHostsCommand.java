package dev.stagecraft.cli.knownhosts;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.ErrorLine;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.run.ApiClient;
import dev.stagecraft.cli.stack.StackLocator;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code stagecraft known-hosts list|add|remove}: the SSH host keys executors enforce for the
 * tenant (ADR "Host key trust").
 *
 * <ul>
 *   <li>{@code list [-workspace=NAME]}: the tenant's known hosts and the keys trusted on first use
 *       in the workspace (default {@code default});
 *   <li>{@code add HOST[:PORT] KEY}: trust KEY ({@code ssh-ed25519 AAAA...}, one argument or two)
 *       for HOST:PORT in every workspace of the tenant;
 *   <li>{@code remove [-workspace=NAME] HOST[:PORT]}: stop trusting what is recorded for HOST:PORT
 *       — the tenant's known hosts and the workspace's first-use key — so the next run trusts the
 *       key the host offers on first use (or pin it with {@code host_key}).
 * </ul>
 *
 * Exit code 0 on success (also when there was nothing to remove), 1 on error.
 */
public final class KnownHostsCommand implements Command {
  /** Which subcommand. */
  public enum Mode {
    LIST,
    ADD,
    REMOVE
  }

  private final Mode mode;

  public KnownHostsCommand(Mode mode) {
    this.mode = mode;
  }

  /** A parsed {@code HOST[:PORT]} ({@code [v6]:PORT} for IPv6 with a port). */
  record HostPort(String host, int port) {
    static HostPort parse(String text) {
      String host = text;
      int port = 22;
      if (text.startsWith("[")) {
        int close = text.indexOf(']');
        if (close < 0) {
          throw new UsageException("\"" + text + "\" has no closing ']': write [ADDRESS]:PORT");
        }
        host = text.substring(1, close);
        String rest = text.substring(close + 1);
        if (!rest.isEmpty()) {
          if (!rest.startsWith(":")) {
            throw new UsageException("\"" + text + "\" is not HOST[:PORT]");
          }
          port = port(text, rest.substring(1));
        }
      } else if (text.indexOf(':') >= 0 && text.indexOf(':') == text.lastIndexOf(':')) {
        host = text.substring(0, text.indexOf(':'));
        port = port(text, text.substring(text.indexOf(':') + 1));
      }
      if (host.isBlank()) {
        throw new UsageException("\"" + text + "\" names no host");
      }
      return new HostPort(host, port);
    }

    private static int port(String text, String port) {
      try {
        int p = Integer.parseInt(port);
        if (p >= 1 && p <= 65535) {
          return p;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new UsageException("the port in \"" + text + "\" must be a number 1-65535");
    }

    @Override
    public String toString() {
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    String workspace = "default";
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.startsWith("-workspace=") && mode != Mode.ADD) {
        workspace = a.substring("-workspace=".length());
      } else if (a.equals("-workspace") && mode != Mode.ADD && i + 1 < args.size()) {
        workspace = args.get(++i);
      } else if (a.startsWith("-")) {
        throw new UsageException("unknown option " + a);
      } else {
        positional.add(a);
      }
    }
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    ApiClient api = new ApiClient(target.address().toString(), target.token());
    try {
      return switch (mode) {
        case LIST -> list(ctx, api, workspace, positional);
        case ADD -> add(ctx, api, positional);
        case REMOVE -> remove(ctx, api, workspace, positional);
      };
    } catch (ApiClient.ApiException e) {
      ctx.err().println(ErrorLine.of(e.getMessage()));
      return 1;
    }
  }

  private static int list(CliContext ctx, ApiClient api, String workspace, List<String> positional)
      throws Exception {
    if (!positional.isEmpty()) {
      throw new UsageException("list takes no arguments");
    }
    JsonNode answer = api.get(api.api("known_hosts") + "?workspace=" + enc(workspace));
    JsonNode keys = answer == null ? null : answer.path("keys");
    if (keys == null || keys.isEmpty()) {
      ctx.out()
          .println(
              "No host keys recorded for workspace \""
                  + workspace
                  + "\" and no known hosts: unpinned hosts are trusted on first use.");
      return 0;
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"HOST:PORT", "KEY", "TRUSTED AS"});
    for (JsonNode key : keys) {
      rows.add(
          new String[] {
            new HostPort(key.path("host").asText(), key.path("port").asInt()).toString(),
            key.path("publicKey").asText().split(" ", 2)[0]
                + " "
                + key.path("fingerprint").asText(),
            key.path("origin").asText() + ", since " + key.path("createdAt").asText()
          });
    }
    int[] widths = new int[2];
    for (String[] row : rows) {
      widths[0] = Math.max(widths[0], row[0].length());
      widths[1] = Math.max(widths[1], row[1].length());
    }
    for (String[] row : rows) {
      ctx.out()
          .println(
              String.format(
                      "%-" + widths[0] + "s  %-" + widths[1] + "s  %s", row[0], row[1], row[2])
                  .stripTrailing());
    }
    return 0;
  }

  private static int add(CliContext ctx, ApiClient api, List<String> positional) throws Exception {
    if (positional.size() < 2) {
      throw new UsageException(
          "add needs HOST[:PORT] and the public key (e.g. ssh-ed25519 AAAA..., as in the host's"
              + " /etc/ssh/ssh_host_ed25519_key.pub)");
    }
    HostPort where = HostPort.parse(positional.get(0));
    String key = String.join(" ", positional.subList(1, positional.size()));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("host", where.host());
    body.put("port", where.port());
    body.put("publicKey", key);
    JsonNode added = api.post(api.api("known_hosts"), body);
    ctx.out()
        .println(
            "Known host "
                + new HostPort(added.path("host").asText(), added.path("port").asInt())
                + " trusts "
                + added.path("publicKey").asText().split(" ", 2)[0]
                + " "
                + added.path("fingerprint").asText()
                + " in every workspace.");
    return 0;
  }

  private static int remove(
      CliContext ctx, ApiClient api, String workspace, List<String> positional) throws Exception {
    if (positional.size() != 1) {
      throw new UsageException("remove needs exactly one HOST[:PORT]");
    }
    HostPort where = HostPort.parse(positional.get(0));
    String query = "?host=" + enc(where.host()) + "&port=" + where.port();
    List<JsonNode> removed = new ArrayList<>();
    api.delete(api.api("known_hosts") + query + "&workspace=" + enc(workspace))
        .path("removed")
        .forEach(removed::add);
    api.delete(api.api("known_hosts") + query).path("removed").forEach(removed::add);
    if (removed.isEmpty()) {
      ctx.out()
          .println(
              "No host key recorded for "
                  + where
                  + " in workspace \""
                  + workspace
                  + "\" or the tenant's known hosts: nothing to remove.");
      return 0;
    }
    for (JsonNode key : removed) {
      ctx.out()
          .println(
              "Removed "
                  + key.path("publicKey").asText().split(" ", 2)[0]
                  + " "
                  + key.path("fingerprint").asText()
                  + " for "
                  + where
                  + " ("
                  + key.path("origin").asText()
                  + ").");
    }
    ctx.out()
        .println(
            "The next run trusts the key "
                + where
                + " offers on first use, unless its connection pins host_key.");
    return 0;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public String synopsis() {
    return switch (mode) {
      case LIST -> "known-hosts list         List trusted SSH host keys (known hosts, first use)";
      case ADD -> "known-hosts add HOST[:PORT] KEY  Trust an SSH host key in every workspace";
      case REMOVE -> "known-hosts remove HOST[:PORT]  Stop trusting the recorded host key(s)";
    };
  }
}
