package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.devstack.ServiceJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged services check their service tokens before they serve anything
 * (docs/internal-api.md, "Service roles"): an executor given any service token, and a service given
 * only the retired shared one, stop at start with a message naming the variables, never their
 * values.
 */
class ServiceCredentialsAtStartTest {
  private static final String SECRET = "0123456789abcdef-do-not-print";

  @TempDir Path tmp;

  @Test
  void anExecutorGivenAServiceTokenDoesNotStartAndNamesTheVariableToRemove() throws Exception {
    Run run =
        run(
            "executor-service",
            Map.of(
                "STAGECRAFT_KAFKA", "127.0.0.1:1",
                "STAGECRAFT_SECRETS_REQUIRED", "false",
                "STAGECRAFT_SERVICE_TOKEN_PLANNER", SECRET));

    assertThat(run.exitValue()).as(run.log()).isNotZero();
    assertThat(run.log())
        .contains(
            "executor-service cannot start: STAGECRAFT_SERVICE_TOKEN_PLANNER is set but"
                + " executor-service holds no service token")
        .doesNotContain(SECRET);
  }

  @Test
  void aServiceStartedWithOnlyTheRetiredSharedTokenNamesTheVariablesThatReplaceIt()
      throws Exception {
    try (EmbeddedPostgresServer postgres =
        EmbeddedPostgresServer.start(tmp.resolve("pg").resolve("data"), 0)) {
      Run run =
          run(
              "lock-service",
              Map.of(
                  "STAGECRAFT_DB_URL", postgres.jdbcUrl(),
                  "STAGECRAFT_DB_USER", postgres.user(),
                  "STAGECRAFT_DB_PASSWORD", postgres.password(),
                  "STAGECRAFT_SERVICE_TOKEN", SECRET));

      assertThat(run.exitValue()).as(run.log()).isNotZero();
      assertThat(run.log())
          .contains("lock-service cannot start")
          .contains("STAGECRAFT_SERVICE_TOKEN is no longer read")
          .contains("set STAGECRAFT_SERVICE_TOKEN_PLANNER, STAGECRAFT_SERVICE_TOKEN_STATE")
          .contains("STAGECRAFT_SERVICE_TOKEN_STATE is not set")
          .doesNotContain(SECRET);
    } finally {
      try (var paths = Files.walk(tmp)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private record Run(int exitValue, String log) {}

  /** Runs the service's packaged jar with only {@code env} (and a free port) until it exits. */
  private Run run(String service, Map<String, String> env) throws Exception {
    Path jar = SharedStack.repoRoot().resolve(service + "/target/" + service + "-app.jar");
    assertThat(jar).as("build the service jars first (mvn -B -DskipTests package)").exists();
    Path log = tmp.resolve(service + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(
                ServiceJvm.command(ProcessHandle.current().info().command().orElse("java"), jar))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
    builder.environment().putAll(env);
    builder.environment().put("STAGECRAFT_PORT", "0");
    Process process = builder.start();
    try {
      assertThat(process.waitFor(120, TimeUnit.SECONDS))
          .as("%s exited (it should refuse to start); log: %s", service, log)
          .isTrue();
    } finally {
      process.destroyForcibly();
    }
    return new Run(process.exitValue(), Files.readString(log));
  }
}
