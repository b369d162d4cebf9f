package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.fail;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** The repository the system tests run in; the reactor packages the services before them. */
final class SystemTestRepo {
  private SystemTestRepo() {}

  static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }

  /** Fails (not skips) when a service jar is missing: the reactor builds them before devstack. */
  static void requireServiceJars() {
    for (StackService s : StackService.values()) {
      Path jar =
          root().resolve(s.artifactId()).resolve("target").resolve(s.artifactId() + "-app.jar");
      if (!Files.isRegularFile(jar)) {
        fail(
            jar
                + " is missing. Build the services first: mvn -B -DskipTests package (or run"
                + " dev/test, which builds the whole reactor).");
      }
    }
  }

  static DevStackOptions options(Path dataDir, Path home) {
    return new DevStackOptions(
        dataDir,
        root(),
        home,
        DevStackOptions.anyPorts(),
        0,
        0,
        null,
        DevStackOptions.currentJava(),
        Duration.ofSeconds(120),
        new PrintStream(System.out, true));
  }
}
