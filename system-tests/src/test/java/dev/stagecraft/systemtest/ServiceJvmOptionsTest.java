package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.devstack.ServiceJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dev stack's service processes run with the services' JIT options (docs/adr/0048), read from
 * each running process's command line.
 */
class ServiceJvmOptionsTest {

  @Test
  void everyServiceProcessOfTheDevStackRunsWithTheJitOptions() throws Exception {
    Map<String, Long> services = SharedStack.get().stack().info().services();

    assertThat(services.keySet()).containsExactlyInAnyOrder("state", "lock", "planner", "executor");
    services.forEach(
        (service, pid) -> {
          List<String> arguments = commandLine(pid);
          assertThat(arguments)
              .as("%s (pid %d) command line", service, pid)
              .containsSubsequence(ServiceJvm.JIT_OPTIONS.getFirst(), "-jar")
              .containsAll(ServiceJvm.JIT_OPTIONS);
        });
  }

  private static List<String> commandLine(long pid) {
    try {
      String raw =
          Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"), StandardCharsets.UTF_8);
      return Arrays.asList(raw.split("\0"));
    } catch (java.io.IOException e) {
      throw new AssertionError("cannot read the command line of pid " + pid, e);
    }
  }
}
