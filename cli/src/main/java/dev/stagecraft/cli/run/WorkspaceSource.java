package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The configuration source options of {@code workspaces create|set} (ADR 0078): {@code -source=git
 * -repo=URL (-branch=B | -tag=T) [-dir=D] [-token=@FILE | -ssh-key=@FILE] [-trigger-on-any-path]},
 * or {@code -source=upload} (the configuration version last uploaded). Credentials are read from
 * files ({@code @path}) or standard input ({@code -}) so they stay out of the shell's history; they
 * are never printed. Not thread-safe: one per invocation.
 */
final class WorkspaceSource {
  static final Set<String> OPTIONS =
      Set.of(
          "-source",
          "-repo",
          "-branch",
          "-tag",
          "-dir",
          "-token",
          "-ssh-key",
          "-trigger-on-any-path");

  static final String USAGE =
      "-source=git -repo=URL (-branch=B | -tag=T) [-dir=D] [-token=@FILE | -ssh-key=@FILE]"
          + " [-trigger-on-any-path], or -source=upload";

  private final Map<String, String> given = new LinkedHashMap<>();

  /** Takes {@code option} when it is a source option; false otherwise. */
  boolean accept(String option, String value) {
    if (!OPTIONS.contains(option)) {
      return false;
    }
    if (option.equals("-trigger-on-any-path")) {
      if (value != null && !value.equals("true") && !value.equals("false")) {
        throw new UsageException("-trigger-on-any-path takes no value (or true|false)");
      }
      given.put(option, value == null ? "true" : value);
    } else if (value == null || value.isEmpty()) {
      throw new UsageException(option + " needs a value: " + option + "=...");
    } else {
      given.put(option, value);
    }
    return true;
  }

  boolean isEmpty() {
    return given.isEmpty();
  }

  /**
   * The body of {@code PUT /workspaces/{ws}/source}, checked; credentials read from their files.
   */
  Map<String, Object> body(CliContext ctx) {
    String kind = given.get("-source");
    if (kind == null) {
      throw new UsageException("the source options need -source: " + USAGE);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    switch (kind) {
      case "upload" -> {
        if (given.size() > 1) {
          throw new UsageException("-source=upload takes no other source option");
        }
        body.put("kind", "upload");
      }
      case "git" -> git(ctx, body);
      default -> throw new UsageException("-source is git or upload, not " + kind);
    }
    return body;
  }

  private void git(CliContext ctx, Map<String, Object> body) {
    if (!given.containsKey("-repo")) {
      throw new UsageException("-source=git needs -repo=URL");
    }
    if (given.containsKey("-branch") == given.containsKey("-tag")) {
      throw new UsageException("-source=git needs one of -branch=B or -tag=T");
    }
    if (given.containsKey("-token") && given.containsKey("-ssh-key")) {
      throw new UsageException("give -token (https) or -ssh-key (ssh), not both");
    }
    body.put("kind", "git");
    body.put("url", given.get("-repo"));
    if (given.containsKey("-branch")) {
      body.put("branch", given.get("-branch"));
    } else {
      body.put("tag", given.get("-tag"));
    }
    if (given.containsKey("-dir")) {
      body.put("directory", given.get("-dir"));
    }
    if (given.containsKey("-token")) {
      body.put("token", VariableArgs.readValue(ctx, given.get("-token"), false));
    }
    if (given.containsKey("-ssh-key")) {
      body.put("sshKey", VariableArgs.readValue(ctx, given.get("-ssh-key"), true));
    }
    body.put("triggerOnAnyPath", Boolean.parseBoolean(given.get("-trigger-on-any-path")));
  }

  /** A workspace's source as {@code workspaces show} prints it (credentials: only their kind). */
  static void print(CliContext ctx, JsonNode source) {
    String kind = source.path("kind").asText();
    if (!kind.equals("git")) {
      ctx.out().println("source:      the configuration version last uploaded");
      return;
    }
    ctx.out()
        .println(
            "source:      git "
                + source.path("url").asText()
                + (source.hasNonNull("ref") ? " at " + source.path("ref").asText() : ""));
    String directory = source.path("directory").asText("");
    ctx.out()
        .println("directory:   " + (directory.isEmpty() ? "(the repository's root)" : directory));
    ctx.out().println("credentials: " + source.path("credentials").asText("none"));
    ctx.out()
        .println(
            "on push:     "
                + (source.path("triggerOnAnyPath").asBoolean()
                    ? "a run for every push"
                    : "a run when the push changes the directory"));
  }
}
