package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Keeps docker-compose.yml valid without a Docker engine: {@code docker-compose config -q}
 * (Debian's docker-compose 1.29, installed by dev/test) rejects unknown keys and wrong types. The
 * Kafka principals' passwords have no default: without one, compose refuses to start and names the
 * variable.
 */
class DockerComposeConfigTest {
  static final List<String> KAFKA_PASSWORDS =
      List.of("BROKER", "ADMIN", "PLANNER", "EXECUTOR", "STATE", "LOCK", "TRIGGER").stream()
          .map(p -> "STAGECRAFT_KAFKA_" + p + "_PASSWORD")
          .toList();

  @Test
  void dockerComposeFileIsValid() throws Exception {
    Map<String, String> env = new HashMap<>();
    KAFKA_PASSWORDS.forEach(v -> env.put(v, "0123456789abcdef0123456789abcdef"));

    Result r = config(env);

    assertThat(r.exitCode()).as("docker-compose config -q said:\n%s", r.output()).isZero();
    assertThat(r.output())
        .as("docker-compose config -q output")
        .doesNotContainIgnoringCase("error");
  }

  @Test
  void withoutAKafkaPrincipalsPasswordComposeRefusesAndNamesTheVariable() throws Exception {
    for (String missing : KAFKA_PASSWORDS) {
      Map<String, String> env = new HashMap<>();
      KAFKA_PASSWORDS.stream()
          .filter(v -> !v.equals(missing))
          .forEach(v -> env.put(v, "0123456789abcdef0123456789abcdef"));

      Result r = config(env);

      assertThat(r.exitCode()).as(missing).isNotZero();
      assertThat(r.output()).contains("set " + missing + " to a random secret");
    }
  }

  private record Result(int exitCode, String output) {}

  private static Result config(Map<String, String> env) throws Exception {
    Path repo = TestRepo.root();
    Process p;
    try {
      ProcessBuilder b =
          new ProcessBuilder("docker-compose", "-f", "docker-compose.yml", "config", "-q")
              .directory(repo.toFile())
              .redirectErrorStream(true);
      b.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
      b.environment().putAll(env);
      p = b.start();
    } catch (IOException e) {
      fail(
          "docker-compose is not installed, so docker-compose.yml cannot be validated. Run the"
              + " tests with dev/test (it installs the docker-compose package), or: apt-get"
              + " install -y docker-compose");
      return null;
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("docker-compose finished").isTrue();
    return new Result(p.exitValue(), output);
  }
}
