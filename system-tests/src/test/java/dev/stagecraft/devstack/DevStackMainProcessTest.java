package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The supervisor as the CLI runs it: its own JVM, stopped with SIGTERM. */
class DevStackMainProcessTest {
  @TempDir Path tmp;

  @BeforeAll
  static void serviceJarsAreBuilt() {
    SystemTestRepo.requireServiceJars();
  }

  @Test
  void sigtermStopsEveryServiceProcessAndRemovesStackJson() throws Exception {
    Path data = tmp.resolve("data");
    Path home = tmp.resolve("home");
    ProcessBuilder builder =
        new ProcessBuilder(
                DevStackOptions.currentJava(),
                "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                "-cp",
                System.getProperty("java.class.path"),
                DevStackMain.class.getName(),
                "--data-dir",
                data.toString(),
                "--repo",
                SystemTestRepo.root().toString(),
                "--any-ports")
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("supervisor.log").toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
    builder.environment().put("STAGECRAFT_HOME", home.toString());
    Process supervisor = builder.start();
    try {
      await()
          .atMost(Duration.ofSeconds(180))
          .until(
              () -> {
                assertThat(supervisor.isAlive())
                    .as("supervisor alive; its output: %s", log())
                    .isTrue();
                // The supervisor writes stack.json and the CLI pointer, then prints its summary;
                // the summary's last line is the signal that start-up is over.
                return log().contains("Press Ctrl-C to stop");
              });
      StackInfo info = StackFiles.read(data.resolve("stack.json"), StackInfo.class).orElseThrow();
      assertThat(info.pid()).isEqualTo(supervisor.pid());
      List<Long> pids = List.copyOf(info.services().values());
      assertThat(pids).hasSize(4);
      assertThat(log()).contains("export STAGECRAFT_ADDR=" + info.planner());
      assertThat(home.resolve("dev-stack.json")).exists();

      supervisor.destroy(); // SIGTERM, as `stagecraft down` sends it
      assertThat(supervisor.waitFor(90, TimeUnit.SECONDS)).as("supervisor exited").isTrue();

      assertThat(pids)
          .allSatisfy(
              pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty());
      assertThat(data.resolve("stack.json")).doesNotExist();
      assertThat(home.resolve("dev-stack.json")).doesNotExist();
      assertThat(log()).contains("Dev stack stopped.");
    } finally {
      supervisor.destroyForcibly();
    }
  }

  private String log() throws Exception {
    return Files.readString(tmp.resolve("supervisor.log"));
  }
}
