package dev.stagecraft.cli.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The configuration of a directory: its {@code *.tf} and {@code *.tf.json} files, by name. */
public final class ConfigDirectory {
  private ConfigDirectory() {}

  public static Map<String, String> read(Path dir) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> entries = Files.list(dir)) {
      for (Path p : entries.sorted().toList()) {
        String name = p.getFileName().toString();
        if (Files.isRegularFile(p) && (name.endsWith(".tf") || name.endsWith(".tf.json"))) {
          files.put(name, Files.readString(p, StandardCharsets.UTF_8));
        }
      }
    }
    return files;
  }
}
