package dev.stagecraft.planner.service.source;

import java.util.Map;

/**
 * The configuration of one commit: the {@code .tf} files of the source's directory (name → text)
 * and its other files (relative path → bytes, as {@code supportFiles}), read from {@code commit}
 * (40 hex digits), which {@code ref} named when the run resolved it.
 */
public record FetchedConfiguration(
    Map<String, String> files, Map<String, byte[]> supportFiles, String commit, String ref) {
  public FetchedConfiguration {
    files = Map.copyOf(files);
    supportFiles = Map.copyOf(supportFiles);
  }
}
