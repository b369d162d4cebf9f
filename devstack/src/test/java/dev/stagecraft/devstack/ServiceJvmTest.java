package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every way a service is started gives it the same JIT options (docs/adr/0048). */
class ServiceJvmTest {

  @Test
  void theCommandCarriesTheHeapAndTheJitOptionsBeforeTheJar() {
    List<String> command = ServiceJvm.command("/jdk/bin/java", Path.of("/repo/x-app.jar"));

    assertThat(command)
        .containsExactly(
            "/jdk/bin/java",
            "-Xmx256m",
            "-XX:CompileThresholdScaling=0.1",
            "-jar",
            "/repo/x-app.jar");
  }

  @Test
  void everyServiceImageStartsItsJvmWithTheJitOptions() throws Exception {
    for (String service : List.of("planner", "state", "lock", "executor")) {
      Path dockerfile = TestRepo.root().resolve(service + "-service/Dockerfile");
      String entrypoint =
          Files.readAllLines(dockerfile).stream()
              .filter(l -> l.startsWith("ENTRYPOINT"))
              .findFirst()
              .orElseThrow(() -> new AssertionError(dockerfile + " has no ENTRYPOINT"));
      for (String option : ServiceJvm.JIT_OPTIONS) {
        assertThat(entrypoint)
            .as("%s: the JIT options go before -jar", dockerfile)
            .contains("\"java\",\"" + option + "\"")
            .containsSubsequence(option, "-jar");
      }
    }
  }
}
