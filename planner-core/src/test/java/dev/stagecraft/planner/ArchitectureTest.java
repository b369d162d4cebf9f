package dev.stagecraft.planner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The planner's domain is plain Java: no framework, broker, database or SSH imports; and no
 * java.util.regex, whose backtracking tenant input could make take years (RE2/J instead, ADR 0061).
 */
class ArchitectureTest {
  static final List<String> FORBIDDEN =
      List.of(
          "io.micronaut",
          "org.apache.kafka",
          "java.sql",
          "javax.sql",
          "net.schmizz",
          "org.flywaydb",
          "java.util.regex");

  @Test
  void domainCodeImportsNoFramework() throws IOException {
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      List<String> offenders =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .flatMap(
                  p -> {
                    try {
                      return Files.readAllLines(p).stream()
                          .filter(l -> l.startsWith("import "))
                          .filter(l -> FORBIDDEN.stream().anyMatch(f -> l.contains(" " + f)))
                          .map(l -> p + ": " + l);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .toList();
      assertThat(offenders).isEmpty();
    }
  }
}
