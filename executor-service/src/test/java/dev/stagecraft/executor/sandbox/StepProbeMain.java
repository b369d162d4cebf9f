package dev.stagecraft.executor.sandbox;

import static org.awaitility.Awaitility.await;

import dev.stagecraft.executor.step.LocalCommands;
import dev.stagecraft.executor.step.UnsandboxedCommands;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stand-in for an executor in a JVM of its own (StepsDieWithTheirExecutorTest): it starts one
 * {@code local-exec} command the way the executor does, from a thread that then ends (as a virtual
 * thread's carrier may), prints {@code started} and then waits until its standard input closes or
 * it is killed.
 *
 * <p>Arguments: {@code sandbox|off}, the sandbox directory, a directory shared with the command,
 * the first sandbox uid, the value of the command's {@code STAGECRAFT_PROBE_MARKER} and the shell
 * command.
 */
public final class StepProbeMain {
  private StepProbeMain() {}

  public static void main(String[] args) throws Exception {
    Path shared = Path.of(args[2]);
    LocalCommands commands =
        args[0].equals("sandbox")
            ? BubblewrapSandbox.create(
                SandboxSettings.defaults(Path.of(args[1]))
                    .withUids(Integer.parseInt(args[3]), 4)
                    .withSharedPaths(List.of(shared.toString())))
            : new UnsandboxedCommands(shared);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicReference<Path> task = new AtomicReference<>();
    Thread starter =
        Thread.ofPlatform()
            .name("probe-action")
            .start(
                () -> {
                  try {
                    task.set(Files.readSymbolicLink(Path.of("/proc/thread-self")));
                    LocalCommands.Session session =
                        commands.open(new LocalCommands.ActionIdentity("run-probe", "run-probe/x"));
                    Process p =
                        session.start(
                            List.of("/bin/sh", "-c", args[5]),
                            Map.of("STAGECRAFT_PROBE_MARKER", args[4]),
                            null);
                    drain(p.getInputStream());
                    drain(p.getErrorStream());
                  } catch (Throwable e) {
                    failure.set(e);
                  }
                });
    starter.join();
    if (failure.get() != null) {
      failure.get().printStackTrace();
      System.exit(2);
    }
    // the thread that started the command is gone, in the kernel too (it ends after join returns)
    Path thread = Path.of("/proc").resolve(task.get());
    await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(thread));
    System.out.println("started");
    System.out.flush();
    System.in.transferTo(java.io.OutputStream.nullOutputStream());
    System.exit(0);
  }

  private static void drain(InputStream in) {
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (in) {
                in.transferTo(System.err);
              } catch (Exception e) {
                // the command's end
              }
            });
  }
}
