package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.WORKSPACE;
import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stagecraft.schemas.EventCodec;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** The body of a plan or run request ({@code POST /api/v1/plans}, {@code POST /api/v1/runs}). */
public record RunBody(
    String workspace,
    Map<String, String> files,
    @Nullable Map<String, String> supportFiles,
    @Nullable Map<String, String> variables,
    @Nullable Boolean destroy,
    @Nullable List<String> replace,
    @Nullable Long expectedSerial,
    @Nullable String expectedDigest,
    @Nullable Integer parallelism,
    @Nullable String configurationVersion,
    @Nullable String message,
    @Nullable String coalescingKey,
    @Nullable List<String> hclVariables,
    @Nullable String ref,
    @Nullable String commit) {

  /** A commit: 7 to 40 hex digits. */
  private static final Pattern COMMIT = Pattern.compile("[0-9a-fA-F]{7,40}");

  /**
   * Whether the request names only its workspace (no files, no configuration version): its
   * configuration comes from the workspace (docs/workspaces.md).
   */
  boolean fromWorkspace() {
    return (files == null || files.isEmpty()) && configurationVersion == null;
  }

  /**
   * The names among {@code variables} whose values are HCL expressions (a variable file's: they
   * keep their own type); the others are strings, as {@code -var} gives them.
   */
  Set<String> hcl() {
    return hclVariables == null ? Set.of() : Set.copyOf(hclVariables);
  }

  /** The same request with these files (those of a configuration version). */
  RunBody withFiles(Map<String, String> configFiles, Map<String, String> support) {
    return new RunBody(
        workspace,
        configFiles,
        support,
        variables,
        destroy,
        replace,
        expectedSerial,
        expectedDigest,
        parallelism,
        configurationVersion,
        message,
        coalescingKey,
        hclVariables,
        ref,
        commit);
  }

  /** Whether the workspace is named, and validly. */
  boolean namesWorkspace() {
    return workspace != null && WORKSPACE.matcher(workspace).matches();
  }

  /**
   * 400 for a body without a valid workspace, with a ref or commit beside files, or with a value
   * out of range; else null. A body without files takes its workspace's configuration.
   */
  HttpResponse<?> invalid() {
    if (!namesWorkspace()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid workspace",
          "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit; got "
              + workspace
              + ".");
    }
    if ((ref != null || commit != null) && !fromWorkspace()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Configuration and ref",
          "The request sends a configuration and a \"ref\" or \"commit\": a ref or commit names"
              + " the workspace's own configuration, so leave out either the files (or"
              + " configuration version) or them.");
    }
    if (commit != null && !COMMIT.matcher(commit).matches()) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid commit",
          "\"commit\" must be 7-40 hexadecimal digits (a git commit id); got " + commit + ".");
    }
    if (ref != null && (ref.isBlank() || ref.length() > 250)) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid ref",
          "\"ref\" must be a branch or tag name of 1-250 characters; omit it for the branch the"
              + " workspace follows.");
    }
    return RequestRanges.first(
        RequestRanges.PARALLELISM.check(parallelism), RequestRanges.SERIAL.check(expectedSerial));
  }

  /** 400 for a coalescing key that is blank or over 100 characters; else null. */
  HttpResponse<?> invalidCoalescingKey() {
    if (coalescingKey != null && (coalescingKey.isBlank() || coalescingKey.length() > 100)) {
      return problem(
          HttpStatus.BAD_REQUEST,
          "Invalid coalescing key",
          "\"coalescingKey\" must be 1-100 characters (what the run is for, e.g. \"deploy\");"
              + " omit it to use the workspace's default key.");
    }
    return null;
  }

  /**
   * The body in a canonical JSON form (map entries sorted), to tell a retry from another request
   * with the same key. Only its keyed digest is stored, never the body.
   */
  byte[] canonical() {
    try {
      return EventCodec.mapper()
          .copy()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .writeValueAsBytes(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not digest the request: " + e.getMessage(), e);
    }
  }
}
