package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Keeps docker-compose.yml valid without a Docker engine: {@code docker-compose config -q}
 * (Debian's docker-compose 1.29, installed by dev/test) rejects unknown keys and wrong types.
 */
class DockerComposeConfigTest {

  @Test
  void dockerComposeFileIsValid() throws Exception {
    Path repo = TestRepo.root();
    Process p;
    try {
      p =
          new ProcessBuilder("docker-compose", "-f", "docker-compose.yml", "config", "-q")
              .directory(repo.toFile())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      fail(
          "docker-compose is not installed, so docker-compose.yml cannot be validated. Run the"
              + " tests with dev/test (it installs the docker-compose package), or: apt-get"
              + " install -y docker-compose");
      return;
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("docker-compose finished").isTrue();
    assertThat(p.exitValue()).as("docker-compose config -q said:\n%s", output).isZero();
    assertThat(output).as("docker-compose config -q output").doesNotContainIgnoringCase("error");
  }
}
