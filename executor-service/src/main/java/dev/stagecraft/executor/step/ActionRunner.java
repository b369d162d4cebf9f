package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out one dispatched action: runs the provisioners that apply to it, in order, and reports
 * every output line to an {@link OutputSink} as it is printed.
 *
 * <ul>
 *   <li>{@code create} runs the steps with {@code when = create}; {@code delete} those with {@code
 *       when = destroy}; {@code replace} first the destroy-time steps (of the old object), then the
 *       create-time ones; {@code update} and {@code forget} run nothing. The planner includes only
 *       the steps that must run (e.g. no destroy-time steps in a create-before-destroy replace).
 *   <li>{@code local-exec} runs here; {@code remote-exec} and {@code file} run over SSH/SFTP
 *       through the {@link RemoteConnector} port (see {@link RemoteSteps}). When a step that would
 *       run has another type, the action fails before any step ran, so nothing half-happens.
 *   <li>A failing step with {@code on_failure = continue} is logged and the next step runs; with
 *       {@code fail} (the default) the action stops and fails.
 *   <li>Every line and every error passes through a {@link Redactor} built from the action's {@code
 *       sensitiveValues}; a step flagged {@code sensitive} never shows its command text.
 * </ul>
 *
 * <p>Concurrency: {@link #run} blocks the calling thread until the action is done; the runner is
 * stateless and may run many actions at once from different threads. Each command gets two reader
 * threads (stdout, stderr) whose sink calls are serialized per action. Interrupting the calling
 * thread kills the running command (and its children) and fails the action as interrupted.
 *
 * <p>Not idempotent: running the same action twice runs its commands twice. Callers must ensure an
 * action id is run once (see the executor's Kafka adapter).
 */
public final class ActionRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ActionRunner.class);
  public static final List<String> DEFAULT_INTERPRETER = List.of("/bin/sh", "-c");
  static final String LOCAL_EXEC = "local-exec";
  private static final Set<String> SUPPORTED =
      Set.of(LOCAL_EXEC, RemoteSteps.REMOTE_EXEC, RemoteSteps.FILE);
  private static final Duration KILL_GRACE = Duration.ofSeconds(5);

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

  private final Path workingDirectory;
  private final RemoteConnector connector;
  private final Supplier<String> scriptPaths;

  /** A runner without SSH: {@code remote-exec} and {@code file} steps fail to connect. */
  public ActionRunner(Path workingDirectory) {
    this(workingDirectory, RemoteConnector.UNAVAILABLE);
  }

  /**
   * @param workingDirectory the executor's working directory: relative {@code working_dir} values
   *     are resolved against it, and commands without one run in it
   * @param connector opens the SSH sessions of {@code remote-exec} and {@code file} steps
   */
  public ActionRunner(Path workingDirectory, RemoteConnector connector) {
    this(workingDirectory, connector, ActionRunner::randomScriptPath);
  }

  /**
   * @param scriptPaths names the remote file each {@code remote-exec} script is uploaded to
   */
  ActionRunner(Path workingDirectory, RemoteConnector connector, Supplier<String> scriptPaths) {
    this.workingDirectory = workingDirectory.toAbsolutePath();
    this.connector = connector;
    this.scriptPaths = scriptPaths;
  }

  /** {@code /tmp/stagecraft-<16 random hex digits>.sh}: unguessable, so no other user races it. */
  private static String randomScriptPath() {
    UUID id = UUID.randomUUID();
    return "/tmp/stagecraft-"
        + HexFormat.of().toHexDigits(id.getMostSignificantBits() ^ id.getLeastSignificantBits())
        + ".sh";
  }

  public ActionResult run(ActionDispatched action, OutputSink sink) {
    return run(action, sink, connector);
  }

  /**
   * As {@link #run(ActionDispatched, OutputSink)}, with the SSH sessions of this action opened
   * through {@code connector} (the executor passes the action's {@link RunConnections} lease, so
   * that the actions of a run share connections) instead of the runner's own connector.
   */
  public ActionResult run(ActionDispatched action, OutputSink sink, RemoteConnector connector) {
    Redactor redactor = new Redactor(action.sensitiveValues());
    ActionOutput out = new ActionOutput(sink, redactor);
    List<String> phases = phasesOf(action.action());
    if (phases == null) {
      return out.fail(null, "unknown action \"" + action.action() + "\"");
    }
    List<Integer> steps = new ArrayList<>();
    for (String phase : phases) {
      for (int i = 0; i < action.provisioners().size(); i++) {
        ProvisionerStep step = action.provisioners().get(i);
        String when = step.when() == null ? "create" : step.when();
        if (when.equals(phase)) {
          steps.add(i);
        }
      }
    }
    for (int i : steps) {
      String type = action.provisioners().get(i).type();
      if (!SUPPORTED.contains(type)) {
        return out.fail(
            null,
            "provisioner " + type + " is not supported by this executor yet (step " + i + ")");
      }
    }
    try (RemoteSteps remote = new RemoteSteps(connector, out, scriptPaths)) {
      for (int i : steps) {
        ProvisionerStep step = action.provisioners().get(i);
        if (Thread.currentThread().isInterrupted()) {
          return out.fail(null, "interrupted before step " + i + " (" + step.type() + ") ran");
        }
        out.stepStarted(i, step.type(), targetOf(step));
        ActionResult result =
            switch (step.type()) {
              case RemoteSteps.REMOTE_EXEC -> remote.remoteExec(i, step);
              case RemoteSteps.FILE -> remote.file(i, step);
              default -> runLocalExec(i, step, out);
            };
        out.stepEnded(i, result);
        if (result.isSucceeded()) {
          continue;
        }
        if ("continue".equals(step.onFailure()) && !Thread.currentThread().isInterrupted()) {
          out.line(i, LogStream.SYSTEM, "Error ignored (on_failure = continue): " + result.error());
          continue;
        }
        return ActionResult.failed(result.exitCode(), result.error());
      }
    }
    return ActionResult.succeeded();
  }

  /** {@code user@host:port} of a step that runs over SSH; {@code null} for a local step. */
  static String targetOf(ProvisionerStep step) {
    if (LOCAL_EXEC.equals(step.type()) || step.connection() == null) {
      return null;
    }
    SshConnection c = step.connection();
    return (c.user() == null ? "" : c.user() + "@")
        + c.host()
        + ":"
        + (c.port() > 0 ? c.port() : 22);
  }

  /**
   * The {@code when} values of the steps an action runs, in order; empty when it runs none; {@code
   * null} when the action is unknown.
   */
  private static List<String> phasesOf(String action) {
    return switch (action == null ? "" : action) {
      case "create" -> List.of("create");
      case "replace" -> List.of("destroy", "create");
      case "delete" -> List.of("destroy");
      case "update", "forget" -> List.of();
      default -> null;
    };
  }

  private ActionResult runLocalExec(int index, ProvisionerStep step, ActionOutput out) {
    String name = "step " + index + " (" + LOCAL_EXEC + ")";
    if (step.command() == null || step.command().isBlank()) {
      return out.stepFailed(index, null, name + " has no command");
    }
    List<String> interpreter =
        step.interpreter().isEmpty() ? DEFAULT_INTERPRETER : step.interpreter();
    List<String> argv = new ArrayList<>(interpreter);
    argv.add(step.command());
    Path dir =
        step.workingDir() == null || step.workingDir().isBlank()
            ? workingDirectory
            : workingDirectory.resolve(step.workingDir()).normalize();
    if (!step.quiet()) {
      List<String> shown = new ArrayList<>(interpreter);
      shown.add(step.sensitive() ? Redactor.PLACEHOLDER : step.command());
      out.line(index, LogStream.SYSTEM, CommandEcho.of(shown));
    }
    if (!Files.isDirectory(dir)) {
      return out.stepFailed(index, null, name + ": working_dir " + dir + " is not a directory");
    }
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .directory(dir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(step.environment());
    out.startStep();
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return out.stepFailed(index, null, name + " could not start: " + e.getMessage());
    }
    Future<?> stdout = pump(process.getInputStream(), index, LogStream.STDOUT, out);
    Future<?> stderr = pump(process.getErrorStream(), index, LogStream.STDERR, out);
    int exit;
    try {
      exit = process.waitFor();
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
              + " was killed and its"
              + " effect is unknown");
    }
    if (exit != 0) {
      return out.stepFailed(
          index, exit, name + " failed: exit status " + exit + "." + out.tailDescription());
    }
    return ActionResult.succeeded();
  }

  /**
   * Reads a command's output pipe until end-of-stream on a {@link #PIPE_READERS} thread, handing
   * every line to {@code out}.
   */
  private static Future<?> pump(InputStream in, int step, LogStream stream, ActionOutput out) {
    return PIPE_READERS.submit(
        () -> {
          try (BufferedReader reader =
              new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
              out.output(step, stream, line);
            }
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
    } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
      process.destroyForcibly();
    } catch (java.util.concurrent.TimeoutException e) {
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
}
