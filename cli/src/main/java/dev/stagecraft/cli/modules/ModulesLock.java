package dev.stagecraft.cli.modules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code .stagecraft/modules.lock.json} in the configuration directory: the commit each git module
 * source (repository and ref, {@code git::URL?ref=REF}) was pinned to when first fetched; reused
 * until {@code -upgrade}. {@code {"version": 1, "modules": {"git::…?ref=v1": {"commit": "…"}}}}.
 */
final class ModulesLock {
  static final String PATH = ".stagecraft/modules.lock.json";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ModulesLock() {}

  /** The pins of {@code configDir}: package address → commit; empty without a lock file. */
  static Map<String, String> read(Path configDir) throws IOException {
    Path file = configDir.resolve(PATH);
    Map<String, String> out = new TreeMap<>();
    if (!Files.isRegularFile(file)) {
      return out;
    }
    JsonNode doc;
    try {
      doc = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new IOException(
          PATH + " is not valid JSON (" + e.getMessage() + "): delete it to pin the modules again");
    }
    doc.path("modules")
        .fields()
        .forEachRemaining(
            e -> {
              String commit = e.getValue().path("commit").asText("");
              if (commit.matches("[0-9a-f]{40}")) {
                out.put(e.getKey(), commit);
              }
            });
    return out;
  }

  /** Writes the pins (sorted, so that the file diffs well under version control). */
  static void write(Path configDir, Map<String, String> pins) throws IOException {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("version", 1);
    ObjectNode modules = doc.putObject("modules");
    new TreeMap<>(pins)
        .forEach((source, commit) -> modules.putObject(source).put("commit", commit));
    Path file = configDir.resolve(PATH);
    Files.createDirectories(file.getParent());
    Path tmp = Files.createTempFile(file.getParent(), ".modules.lock", ".tmp");
    Files.writeString(tmp, JSON.writeValueAsString(doc) + "\n");
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
