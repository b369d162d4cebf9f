package dev.stagecraft.language;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Tenant input is matched only by RE2/J, which runs in linear time (docs/adr/0061): no code of the
 * language uses java.util.regex, whose backtracking a crafted pattern or text can make take years.
 */
class LinearTimeRegexTest {
  @Test
  void noCodeImportsJavaUtilRegex() throws IOException {
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      List<String> offenders =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .flatMap(
                  p -> {
                    try {
                      return Files.readAllLines(p).stream()
                          .filter(l -> l.contains("java.util.regex"))
                          .map(l -> p + ": " + l.strip());
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  })
              .toList();
      assertThat(offenders).isEmpty();
    }
  }
}
