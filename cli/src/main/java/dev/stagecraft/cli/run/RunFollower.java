package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Follows a run until it ends, printing its transitions and provisioner output the way Terraform
 * prints an apply. Long-polls the run's events, so output appears as soon as it is recorded.
 */
final class RunFollower {
  private final CliContext ctx;
  private final ApiClient api;
  private final boolean showPlan;

  RunFollower(CliContext ctx, ApiClient api, boolean showPlan) {
    this.ctx = ctx;
    this.api = api;
    this.showPlan = showPlan;
  }

  /** Prints the run's events until it is terminal; returns the CLI exit code. */
  int follow(String runId) throws IOException, InterruptedException {
    String base = api.api("runs") + "/" + URLEncoder.encode(runId, StandardCharsets.UTF_8);
    long after = 0;
    String status = "pending";
    String lastMessage = null;
    while (true) {
      JsonNode page = api.get(base + "/events?after=" + after + "&wait=10");
      for (JsonNode event : page.path("events")) {
        after = event.get("sequence").asLong();
        String kind = event.get("kind").asText();
        switch (kind) {
          case "status" -> {
            status = event.get("status").asText();
            lastMessage = text(event, "message");
            printStatus(status, lastMessage);
          }
          case "log" ->
              ctx.out()
                  .println(event.get("address").asText() + " (local-exec): " + text(event, "line"));
          case "action" -> printAction(event.get("address").asText(), text(event, "message"));
          default -> {}
        }
      }
      if (page.path("terminal").asBoolean() && page.path("events").isEmpty()) {
        break;
      }
    }
    return switch (status) {
      case "applied", "planned_and_finished" -> 0;
      default -> 1;
    };
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
        ctx.err().println("Error: " + message);
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
