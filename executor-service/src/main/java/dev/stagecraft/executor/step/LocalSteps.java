package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code local-exec} steps of one action through {@link LocalCommands}: the action's
 * session (its sandbox) is opened before its first {@code local-exec} step and closed with this
 * object, so the steps of one action share a working directory and nothing else.
 *
 * <ul>
 *   <li>{@code command} runs as {@code interpreter + [command]} (default {@code /bin/sh -c}), with
 *       standard input at end of file; stdout and stderr are streamed line by line ({@link
 *       OutputLines}).
 *   <li>A step's {@code timeoutSeconds} (its own {@code timeout}, else the workspace's step
 *       timeout, set by the planner) bounds it; when it is exceeded, or the step prints more than
 *       the step output limit, the command and everything it started are killed and the step fails
 *       with a message naming the limit. A limit of the sandbox the command ran into (memory,
 *       processes, disk) is named in the failure too.
 *   <li>Interrupting the calling thread (cancel, shutdown) kills the command the same way.
 * </ul>
 *
 * <p>Not thread-safe: one instance per action run, used by the thread that runs the action.
 */
final class LocalSteps implements AutoCloseable {
  static final String LOCAL_EXEC = "local-exec";
  private static final Logger LOG = LoggerFactory.getLogger(LocalSteps.class);
  private static final Duration KILL_GRACE = Duration.ofSeconds(5);
  private static final Duration LIMIT_CHECK = Duration.ofMillis(200);

  /**
   * The threads that read local-exec commands' output pipes: platform threads, reused. A read from
   * a pipe blocks in native code, and on a virtual thread it holds the carrier thread all that
   * time; the JDK does not always add a carrier for it. On a two-core executor the two readers of
   * one long command then held both carriers, and every other virtual thread of the executor (the
   * other actions, their heartbeats) waited (docs/adr/0049).
   */
  private static final ExecutorService PIPE_READERS =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().daemon().name("local-exec-pipe-", 0).factory());

  private final LocalCommands commands;
  private final ActionDispatched action;
  private final ActionOutput out;
  private LocalCommands.Session session;

  LocalSteps(LocalCommands commands, ActionDispatched action, ActionOutput out) {
    this.commands = commands;
    this.action = action;
    this.out = out;
  }

  ActionResult run(int index, ProvisionerStep step) {
    String name = "step " + index + " (" + LOCAL_EXEC + ")";
    if (step.command() == null || step.command().isBlank()) {
      return out.stepFailed(index, null, name + " has no command");
    }
    List<String> interpreter =
        step.interpreter().isEmpty() ? ActionRunner.DEFAULT_INTERPRETER : step.interpreter();
    List<String> argv = new ArrayList<>(interpreter);
    argv.add(step.command());
    if (!step.quiet()) {
      List<String> shown = new ArrayList<>(interpreter);
      shown.add(step.sensitive() ? Redactor.PLACEHOLDER : step.command());
      out.line(index, LogStream.SYSTEM, CommandEcho.of(shown));
    }
    out.startStep();
    Process process;
    try {
      if (session == null) {
        session =
            commands.open(new LocalCommands.ActionIdentity(action.runId(), action.actionId()));
      }
      process = session.start(argv, step.environment(), step.workingDir());
    } catch (LocalCommands.Unavailable e) {
      return out.stepFailed(index, null, name + " was not run: " + e.getMessage());
    } catch (LocalCommands.InvalidStep e) {
      return out.stepFailed(index, null, name + ": " + e.getMessage());
    } catch (IOException e) {
      return out.stepFailed(index, null, name + " could not start: " + e.getMessage());
    }
    CompletableFuture<Void> overLimit = new CompletableFuture<>();
    Future<?> stdout = pump(process.getInputStream(), index, LogStream.STDOUT, overLimit);
    Future<?> stderr = pump(process.getErrorStream(), index, LogStream.STDERR, overLimit);
    try {
      if (!awaitExitOrLimit(process, overLimit, step.timeoutSeconds())) {
        kill(process, stdout, stderr);
        return out.stepFailed(
            index,
            null,
            name
                + " timed out after "
                + step.timeoutSeconds()
                + " s (the step timeout: the provisioner's timeout, else the workspace's step"
                + " timeout); the command was killed and its effect is unknown."
                + out.tailDescription());
      }
      if (overLimit.isDone()) {
        kill(process, stdout, stderr);
        return out.stepFailed(index, null, out.outputLimitError(name));
      }
      // The readers end at end-of-stream, after the last line was handed to the sink.
      awaitReader(stdout, null);
      awaitReader(stderr, null);
    } catch (InterruptedException e) {
      kill(process, stdout, stderr);
      Thread.currentThread().interrupt();
      return out.stepFailed(
          index,
          null,
          name
              + " was interrupted (the run was canceled or the executor is shutting down); the command"
              + " was killed and its effect is unknown");
    }
    int exit = process.exitValue();
    if (exit != 0) {
      String limit =
          session.exceededLimit().map(l -> " The sandbox stopped it: " + l + ".").orElse("");
      return out.stepFailed(
          index, exit, name + " failed: exit status " + exit + "." + limit + out.tailDescription());
    }
    return ActionResult.succeeded();
  }

  /**
   * Waits until the process exits or printed too much. Waits with {@link Process#waitFor(long,
   * TimeUnit)}, not {@link Process#onExit()}: the latter completes on the common fork-join pool,
   * which a busy caller (one core's worth of threads on a small machine) can hold for as long as a
   * shutdown takes.
   *
   * @return false when {@code timeoutSeconds} (0 = none) passed first
   */
  private static boolean awaitExitOrLimit(
      Process process, CompletableFuture<Void> overLimit, int timeoutSeconds)
      throws InterruptedException {
    long deadline =
        timeoutSeconds > 0
            ? System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
            : Long.MAX_VALUE;
    while (!overLimit.isDone()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      if (process.waitFor(Math.min(left, LIMIT_CHECK.toNanos()), TimeUnit.NANOSECONDS)) {
        return true;
      }
    }
    return true;
  }

  /**
   * Reads a command's output pipe until end-of-stream on a {@link #PIPE_READERS} thread, handing
   * every line to {@code out}; completes {@code overLimit} when the step printed too much.
   */
  private Future<?> pump(
      InputStream in, int step, LogStream stream, CompletableFuture<Void> overLimit) {
    return PIPE_READERS.submit(
        () -> {
          try (in) {
            OutputLines.pump(
                in,
                line -> {
                  if (out.output(step, stream, line)) {
                    return true;
                  }
                  overLimit.complete(null);
                  return false;
                });
          } catch (IOException e) {
            // The stream closes when the process is killed: nothing more to read.
          }
        });
  }

  /**
   * Waits until {@code reader} has read its pipe to the end, at most {@code timeout} (null: no
   * limit). A reader that failed or is still reading after the timeout is left: the pipe closes
   * with the process.
   */
  private static void awaitReader(Future<?> reader, Duration timeout) throws InterruptedException {
    try {
      if (timeout == null) {
        reader.get();
      } else {
        reader.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (ExecutionException e) {
      // ActionOutput keeps draining when its sink fails, so this is a failure of the reader
      // itself (e.g. the redactor): the rest of the pipe is unread, the result says what it can
      LOG.warn("reading a command's output failed; the rest of it is lost", e.getCause());
    } catch (TimeoutException e) {
      // a grandchild still holds the pipe open: it was killed, its reader ends with it
    }
  }

  /** Terminates the command and everything it started, then forcibly if it does not exit. */
  private static void kill(Process process, Future<?>... readers) {
    // Snapshot the tree first: once the shell is gone its children are re-parented and no longer
    // its descendants. The shell is stopped before its children, so it cannot go on to its next
    // command when a child dies (e.g. "sleep 600; echo done" must never print "done").
    List<ProcessHandle> tree = process.descendants().toList();
    process.destroy();
    tree.forEach(ProcessHandle::destroy);
    try {
      if (!process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
      }
      for (ProcessHandle child : tree) {
        if (child.isAlive() && !child.onExit().isDone()) {
          child.onExit().get(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
      }
    } catch (InterruptedException | ExecutionException e) {
      process.destroyForcibly();
    } catch (TimeoutException e) {
      // a child ignored SIGTERM: it is killed below
    } finally {
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
    try {
      for (Future<?> reader : readers) {
        awaitReader(reader, KILL_GRACE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Closes the action's session: whatever its commands left running dies, its files go. */
  @Override
  public void close() {
    if (session != null) {
      session.close();
      session = null;
    }
  }
}
