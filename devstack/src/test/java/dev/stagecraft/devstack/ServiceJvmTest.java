package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
      if (entrypoint.contains("entrypoint.sh")) {
        // the image starts a script of the service's (docker/entrypoint.sh) that runs the JVM
        Path script = dockerfile.resolveSibling("docker/entrypoint.sh");
        String java =
            Files.readAllLines(script).stream()
                .filter(l -> l.startsWith("exec java "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(script + " does not exec java"));
        for (String option : ServiceJvm.JIT_OPTIONS) {
          assertThat(java)
              .as("%s: the JIT options go before -jar", script)
              .startsWith("exec java " + option)
              .containsSubsequence(option, "-jar");
        }
        continue;
      }
      for (String option : ServiceJvm.JIT_OPTIONS) {
        assertThat(entrypoint)
            .as("%s: the JIT options go before -jar", dockerfile)
            .contains("\"java\",\"" + option + "\"")
            .containsSubsequence(option, "-jar");
      }
    }
  }

  @Test
  void everyServiceStartedFromAReadmeOrABenchmarkScriptGetsTheJitOptions() throws Exception {
    Path root = TestRepo.root();
    // `java ... -jar <service>-app.jar` in a README: how a reader starts a service by hand
    Pattern serviceJar = Pattern.compile("\\bjava\\b.*-jar\\s+\\S*-service-app\\.jar");
    List<Path> readmes;
    try (Stream<Path> modules = Files.list(root)) {
      readmes = modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile).toList();
    }
    int commands = 0;
    for (Path readme : readmes) {
      for (String line : Files.readAllLines(readme)) {
        if (serviceJar.matcher(line).find()) {
          commands++;
          for (String option : ServiceJvm.JIT_OPTIONS) {
            assertThat(line)
                .as("%s: the JIT options go before -jar (docs/adr/0048)", readme)
                .containsSubsequence(option, "-jar");
          }
        }
      }
    }
    assertThat(commands).as("service start commands found in the READMEs").isPositive();
    // dev/bench latency|pipeline: the harness's JVM runs the dev stack's broker
    String bench = Files.readString(root.resolve("dev/bench"));
    int harness = bench.indexOf("dev.stagecraft.systemtest.");
    assertThat(harness).as("dev/bench starts the system-test harness").isPositive();
    String harnessCommand = bench.substring(bench.lastIndexOf("exec ", harness), harness);
    for (String option : ServiceJvm.JIT_OPTIONS) {
      assertThat(harnessCommand).as("dev/bench's harness command").contains(option);
    }
  }
}
