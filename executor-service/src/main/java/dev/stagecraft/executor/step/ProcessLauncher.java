package dev.stagecraft.executor.step;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Starts the processes of steps from one platform thread that lives as long as the executor, so
 * that a step's processes die with the executor and only then.
 *
 * <p>Why: a process learns that the executor died through the kernel's parent-death signal ({@code
 * PR_SET_PDEATHSIG}: bubblewrap's {@code --die-with-parent}, {@code setpriv --pdeathsig}), and the
 * kernel sends it when the <em>thread</em> that started the process ends, not the process. Actions
 * run on virtual threads, whose carrier threads come and go: a command started from one would be
 * killed when its carrier retired, in the middle of its step, and one started from a short-lived
 * thread at once. This thread never ends, so the signal comes exactly when the executor's process
 * dies (killed with SIGKILL included).
 *
 * <p>Concurrency: thread-safe; starts are serialized (a start costs about a millisecond).
 */
public final class ProcessLauncher {
  private static final ExecutorService THREAD =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new LinkedBlockingQueue<>(),
          Thread.ofPlatform().daemon().name("step-process-launcher").factory());

  private ProcessLauncher() {}

  /**
   * {@link ProcessBuilder#start()} on the launcher thread. Not interruptible, as {@code start}
   * itself is not: an interrupt during the start is kept for the caller.
   */
  public static Process start(ProcessBuilder builder) throws IOException {
    Future<Process> started =
        THREAD.submit(
            () -> {
              try {
                return builder.start();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return started.get();
        } catch (InterruptedException e) {
          interrupted = true; // the process may be starting: never lose it
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof UncheckedIOException io) {
            throw io.getCause();
          }
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          throw new IOException("could not start " + builder.command().get(0), cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
