package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

  private final LocalCommands local;
  private final RemoteConnector connector;
  private final Supplier<String> scriptPaths;
  private final long stepOutputLimit;

  /**
   * A runner without SSH ({@code remote-exec} and {@code file} steps fail to connect) whose {@code
   * local-exec} commands run unsandboxed in {@code workingDirectory}: for tests of the step logic.
   */
  public ActionRunner(Path workingDirectory) {
    this(new UnsandboxedCommands(workingDirectory), RemoteConnector.UNAVAILABLE);
  }

  /** As {@link #ActionRunner(Path)}, with SSH through {@code connector}: for tests. */
  public ActionRunner(Path workingDirectory, RemoteConnector connector) {
    this(new UnsandboxedCommands(workingDirectory), connector);
  }

  /** As {@link #ActionRunner(Path, RemoteConnector)}, naming uploaded scripts: for tests. */
  ActionRunner(Path workingDirectory, RemoteConnector connector, Supplier<String> scriptPaths) {
    this(
        new UnsandboxedCommands(workingDirectory),
        connector,
        scriptPaths,
        ActionOutput.DEFAULT_STEP_OUTPUT_LIMIT);
  }

  /**
   * @param local where {@code local-exec} commands run (the executor's sandbox)
   * @param connector opens the SSH sessions of {@code remote-exec} and {@code file} steps
   */
  public ActionRunner(LocalCommands local, RemoteConnector connector) {
    this(local, connector, ActionRunner::randomScriptPath, ActionOutput.DEFAULT_STEP_OUTPUT_LIMIT);
  }

  /**
   * @param scriptPaths names the remote file each {@code remote-exec} script is uploaded to
   * @param stepOutputLimit bytes one step may print before it is stopped and fails
   */
  ActionRunner(
      LocalCommands local,
      RemoteConnector connector,
      Supplier<String> scriptPaths,
      long stepOutputLimit) {
    this.local = local;
    this.connector = connector;
    this.scriptPaths = scriptPaths;
    this.stepOutputLimit = stepOutputLimit;
  }

  /** The same runner with another step output limit (bytes). */
  public ActionRunner withStepOutputLimit(long bytes) {
    if (bytes < 1024) {
      throw new IllegalArgumentException(
          "STAGECRAFT_EXECUTOR_STEP_OUTPUT_LIMIT must be at least 1024 bytes, got " + bytes);
    }
    return new ActionRunner(local, connector, scriptPaths, bytes);
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
    ActionOutput out = new ActionOutput(sink, redactor, stepOutputLimit);
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
    try (RemoteSteps remote = new RemoteSteps(connector, out, scriptPaths);
        LocalSteps localSteps = new LocalSteps(local, action, out)) {
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
              default -> localSteps.run(i, step);
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
      case "update", "forget", "move" -> List.of();
      default -> null;
    };
  }
}
