package dev.stagecraft.devstack;

import java.nio.file.Path;

/** The repository the tests run in (surefire's working directory is the module directory). */
final class TestRepo {
  private TestRepo() {}

  static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }
}
