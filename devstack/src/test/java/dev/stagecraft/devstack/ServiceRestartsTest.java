package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The supervisor's restarts with real processes: a stand-in service ({@link HealthServerMain}, a
 * JVM answering {@code /health}) is killed with SIGKILL and comes back on its port as a new
 * process, after the logged backoff; one stopped on purpose stays down; after the stop of the stack
 * nothing comes back. The same {@link ServiceRestarts} supervises the dev stack's services ({@link
 * DevStack}).
 */
class ServiceRestartsTest {
  final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
  final AtomicInteger starts = new AtomicInteger();
  final AtomicInteger failingStarts = new AtomicInteger();
  Path logs;
  int port;
  volatile ServiceProcess current;
  ServiceRestarts restarts;

  @BeforeEach
  void startService() throws Exception {
    logs = Files.createTempDirectory(Path.of("target"), "restarts-");
    port = EmbeddedKafka.freePort();
    restarts =
        new ServiceRestarts(
            new ServiceRestarts.Host() {
              @Override
              public ServiceProcess restartIfCurrent(ServiceProcess exited) throws Exception {
                return ServiceRestartsTest.this.restartIfCurrent(exited);
              }

              @Override
              public boolean isCurrent(ServiceProcess p) {
                return current == p;
              }
            },
            out);
    current = start();
    current.awaitHealthy(Duration.ofSeconds(60));
    restarts.watch(current);
  }

  @AfterEach
  void stop() throws Exception {
    restarts.close();
    if (current != null) {
      current.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** As {@link DevStack}'s: a new process of the service on the same port, watched, healthy. */
  private synchronized ServiceProcess restartIfCurrent(ServiceProcess exited) throws Exception {
    if (current != exited) {
      return null;
    }
    current = start();
    restarts.watch(current);
    current.awaitHealthy(Duration.ofSeconds(60));
    return current;
  }

  private ServiceProcess start() throws IOException {
    if (failingStarts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IllegalStateException("executor-service: the jar does not exist (test)");
    }
    starts.incrementAndGet();
    String java = ProcessHandle.current().info().command().orElseThrow();
    return ServiceProcess.start(
        StackService.EXECUTOR,
        List.of(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            HealthServerMain.class.getName(),
            Integer.toString(port)),
        logs,
        port,
        Map.of(),
        logs.resolve("executor-service.log"));
  }

  private String printed() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aKilledServiceIsStartedAgainWithBackoff() throws Exception {
    long first = current.pid();
    current.process().destroyForcibly(); // as `kill -9 <pid>` by anyone

    await("a new healthy process")
        .atMost(Duration.ofSeconds(60))
        .until(() -> current.pid() != first && current.process().isAlive() && current.healthy());
    assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> printed().contains("started again"));
    assertThat(printed())
        .contains(
            "warning: executor-service (pid " + first + ") exited with code 137 after ",
            "; restarting it in 1 s (attempt 1); see " + logs.resolve("executor-service.log"),
            "executor-service started again (pid " + current.pid() + ", attempt 1)");

    // it crashes again soon after: the next wait is twice as long
    long second = current.pid();
    current.process().destroyForcibly();
    await("another new healthy process")
        .atMost(Duration.ofSeconds(60))
        .until(() -> current.pid() != second && current.healthy());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> printed().contains("started again (pid " + current.pid() + ", attempt 2)"));
    assertThat(printed()).contains("restarting it in 2 s (attempt 2)");
    assertThat(starts).hasValue(3);
  }

  @Test
  void aServiceThatCouldNotBeStartedIsTriedAgain() throws Exception {
    long first = current.pid();
    failingStarts.set(1); // e.g. its jar is being rebuilt
    current.process().destroyForcibly();

    await("a new healthy process")
        .atMost(Duration.ofSeconds(60))
        .until(() -> current.pid() != first && current.healthy());
    await().atMost(Duration.ofSeconds(10)).until(() -> printed().contains("started again"));
    assertThat(printed())
        .contains(
            "restarting it in 1 s (attempt 1)",
            "warning: starting executor-service again (attempt 1) failed: executor-service: the"
                + " jar does not exist (test)",
            "restarting executor-service in 2 s (attempt 2)",
            "executor-service started again (pid " + current.pid() + ", attempt 2)");
  }

  @Test
  void aServiceStoppedOnPurposeStaysDown() throws Exception {
    ServiceProcess killed = current;
    var handled = restarts.watch(killed); // a second watch: its handling can be awaited
    restarts.stoppedOnPurpose(StackService.EXECUTOR); // as DevStack.kill does
    killed.process().destroyForcibly();
    handled.get(30, TimeUnit.SECONDS);

    assertThat(printed()).contains("exited with code 137").contains("stopped on purpose");
    assertThat(printed()).doesNotContain("restarting");
    assertThat(current).isSameAs(killed);
    assertThat(starts).hasValue(1);
  }

  @Test
  void nothingIsStartedAgainOnceTheStackStops() throws Exception {
    ServiceProcess last = current;
    var handled = restarts.watch(last);
    restarts.close(); // as DevStack.close does before stopping the services
    last.process().destroy();
    handled.get(30, TimeUnit.SECONDS);

    assertThat(printed()).doesNotContain("restarting");
    assertThat(current).isSameAs(last);
    assertThat(starts).hasValue(1);
  }
}
