package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code remote-exec} and {@code file} steps of one action.
 *
 * <ul>
 *   <li>{@code inline} commands become one script (shebang {@code #!/bin/sh}, no {@code set -e}, as
 *       Terraform does): every line runs, the exit status is the last command's. Each entry of
 *       {@code scripts} is a script of its own. A script is uploaded over SFTP to the connection's
 *       {@code scriptPath} ({@code %RAND%} replaced by a random number, {@link ScriptPaths}), else
 *       to {@code /tmp/stagecraft-<random>.sh}, with mode 0700, run, and removed whatever its
 *       outcome.
 *   <li>{@code file} writes {@code content} to {@code destination}, or each entry of {@code files}
 *       (relative path → base64) to {@code destination/<path>}, creating directories as needed.
 *   <li>The connection is opened once per distinct connection block and reused by the following
 *       steps of the action; {@link #close} closes them all. The whole block is the key, so a step
 *       that pins another host key or uses other credentials never rides on a session opened
 *       without them.
 *   <li>A step's {@code timeoutSeconds} bounds the time its commands run (not the connection, which
 *       has its own timeout); when it is exceeded the command is killed and the step fails.
 *   <li>A step with {@code retries = N} (the user's statement that running it again is safe) is run
 *       again, up to N more times, after a <em>transient</em> failure only: the connection could
 *       not be established (within its timeout), or it was lost while the step ran ({@link
 *       RemoteSession.ConnectionLostException}). Never after a non-zero exit status, a step
 *       timeout, an interrupt, or a permanent connection failure (rejected host key or
 *       credentials). The pause before retry k is {@code 2^(k-1)} s, at most {@value
 *       #MAX_RETRY_PAUSE_SECONDS} s; each retry is announced as a system line ({@code retry 2/3
 *       after connection lost: ...}).
 * </ul>
 *
 * <p>Not thread-safe: one instance per action run, used by the thread that runs the action.
 */
final class RemoteSteps implements AutoCloseable {
  static final String REMOTE_EXEC = "remote-exec";
  static final String FILE = "file";
  static final String INLINE_SHEBANG = "#!/bin/sh";
  private static final int SCRIPT_MODE = 0700;
  private static final int FILE_MODE = 0644;
  private static final Logger LOG = LoggerFactory.getLogger(RemoteSteps.class);
  static final long MAX_RETRY_PAUSE_SECONDS = 30;

  /** Waits between the attempts of a step; the real one sleeps, tests record. */
  @FunctionalInterface
  interface RetryPause {
    void pause(Duration duration) throws InterruptedException;
  }

  private final RemoteConnector connector;
  private final ActionOutput out;
  private final Supplier<String> scriptPaths;
  private final RetryPause retryPause;
  private final Map<SshConnection, RemoteSession> sessions = new LinkedHashMap<>();

  RemoteSteps(RemoteConnector connector, ActionOutput out, Supplier<String> scriptPaths) {
    this(connector, out, scriptPaths, duration -> Thread.sleep(duration));
  }

  RemoteSteps(
      RemoteConnector connector,
      ActionOutput out,
      Supplier<String> scriptPaths,
      RetryPause retryPause) {
    this.connector = connector;
    this.out = out;
    this.scriptPaths = scriptPaths;
    this.retryPause = retryPause;
  }

  ActionResult remoteExec(int index, ProvisionerStep step) {
    String name = "step " + index + " (" + REMOTE_EXEC + ")";
    List<String> scripts = new ArrayList<>();
    if (!step.inline().isEmpty()) {
      scripts.add(INLINE_SHEBANG + "\n" + String.join("\n", step.inline()) + "\n");
    }
    scripts.addAll(step.scripts());
    if (scripts.isEmpty()) {
      return out.stepFailed(index, null, name + " has neither inline commands nor scripts");
    }
    return withSession(
        index,
        step,
        name,
        session -> {
          long deadline = deadlineOf(step);
          for (String script : scripts) {
            String path = ScriptPaths.of(step.connection(), scriptPaths);
            session.upload(path, script.getBytes(StandardCharsets.UTF_8), SCRIPT_MODE);
            int exit;
            try {
              exit =
                  session.exec(
                      ScriptPaths.asCommand(path), outputOf(index), remaining(deadline, step));
            } catch (IOException e) {
              if (out.overOutputLimit()) {
                return out.stepFailed(index, null, out.outputLimitError(name));
              }
              throw e;
            } finally {
              removeQuietly(session, path);
            }
            if (out.overOutputLimit()) {
              return out.stepFailed(index, null, out.outputLimitError(name));
            }
            if (exit != 0) {
              return out.stepFailed(
                  index, exit, name + " failed: exit status " + exit + "." + out.tailDescription());
            }
          }
          return ActionResult.succeeded();
        });
  }

  /** The step's output: to the action's output, until the step output limit is reached. */
  private RemoteSession.LineSink outputOf(int index) {
    return new RemoteSession.LineSink() {
      @Override
      public void line(LogStream stream, String line) {
        out.output(index, stream, line);
      }

      @Override
      public boolean wantsMore() {
        return !out.overOutputLimit();
      }
    };
  }

  ActionResult file(int index, ProvisionerStep step) {
    String name = "step " + index + " (" + FILE + ")";
    String destination = step.destination();
    if (destination == null || destination.isBlank()) {
      return out.stepFailed(index, null, name + " has no destination");
    }
    Map<String, byte[]> uploads = new LinkedHashMap<>();
    if (step.content() != null) {
      uploads.put(destination, step.content().getBytes(StandardCharsets.UTF_8));
    }
    String directory = destination.endsWith("/") ? destination : destination + "/";
    for (Map.Entry<String, String> file : new TreeMap<>(step.files()).entrySet()) {
      String problem = relativePathProblem(file.getKey());
      if (problem != null) {
        return out.stepFailed(
            index, null, name + ": source file \"" + file.getKey() + "\" " + problem);
      }
      try {
        uploads.put(directory + file.getKey(), Base64.getDecoder().decode(file.getValue()));
      } catch (IllegalArgumentException e) {
        return out.stepFailed(
            index, null, name + ": source file \"" + file.getKey() + "\" is not valid base64");
      }
    }
    if (uploads.isEmpty()) {
      return out.stepFailed(index, null, name + " has neither content nor source files");
    }
    return withSession(
        index,
        step,
        name,
        session -> {
          for (Map.Entry<String, byte[]> upload : uploads.entrySet()) {
            session.upload(upload.getKey(), upload.getValue(), FILE_MODE);
            out.line(
                index,
                LogStream.SYSTEM,
                "Uploaded " + upload.getValue().length + " bytes to " + upload.getKey());
          }
          return ActionResult.succeeded();
        });
  }

  /** Closes every session this action opened. */
  @Override
  public void close() {
    sessions.values().forEach(RemoteSession::close);
    sessions.clear();
  }

  private interface SessionWork {
    ActionResult run(RemoteSession session)
        throws IOException, InterruptedException, TimeoutException;
  }

  private ActionResult withSession(int index, ProvisionerStep step, String name, SessionWork work) {
    SshConnection connection = step.connection();
    if (connection == null || connection.host() == null || connection.host().isBlank()) {
      return out.stepFailed(index, null, name + " has no connection host");
    }
    int retries = Math.max(0, step.retries());
    for (int attempt = 0; ; attempt++) {
      boolean connected = false;
      String transientFailure;
      IOException failure;
      out.startStep();
      try {
        RemoteSession session = session(index, connection);
        connected = true;
        return work.run(session);
      } catch (TimeoutException
          | InterruptedException
          | RemoteConnector.PermanentConnectionException e) {
        return failed(index, step, name, e, attempt);
      } catch (IOException e) {
        // A broken connection must not be reused by the next step (or attempt).
        RemoteSession broken = sessions.remove(connection);
        if (broken != null) {
          broken.close();
        }
        failure = e;
        transientFailure =
            !connected
                ? "connection could not be established"
                : e instanceof RemoteSession.ConnectionLostException ? "connection lost" : null;
      }
      if (transientFailure == null || attempt >= retries) {
        return failed(index, step, name, failure, attempt);
      }
      Duration pause = retryPause(attempt + 1);
      out.line(
          index,
          LogStream.SYSTEM,
          "retry "
              + (attempt + 1)
              + "/"
              + retries
              + " after "
              + transientFailure
              + ": "
              + failure.getMessage()
              + " (in "
              + pause.toSeconds()
              + " s)");
      try {
        retryPause.pause(pause);
      } catch (InterruptedException e) {
        return failed(index, step, name, e, attempt);
      }
    }
  }

  /** {@code 2^(retry-1)} seconds, at most {@link #MAX_RETRY_PAUSE_SECONDS}. */
  static Duration retryPause(int retry) {
    return Duration.ofSeconds(Math.min(MAX_RETRY_PAUSE_SECONDS, 1L << Math.min(retry - 1, 20)));
  }

  /** The step's failure after {@code retried} retries. */
  private ActionResult failed(
      int index, ProvisionerStep step, String name, Exception failure, int retried) {
    String gaveUp =
        retried == 0 ? "" : " (gave up after " + retried + (retried == 1 ? " retry)" : " retries)");
    return switch (failure) {
      case TimeoutException e ->
          out.stepFailed(
              index,
              null,
              name
                  + " timed out after "
                  + step.timeoutSeconds()
                  + " s; the command was killed and its effect is unknown."
                  + out.tailDescription());
      case InterruptedException e -> {
        Thread.currentThread().interrupt();
        yield out.stepFailed(
            index,
            null,
            name
                + " was interrupted (the executor is shutting down); the command was killed and"
                + " its effect is unknown");
      }
      // rejected host key or credentials, a lost or unreachable connection, an SFTP error
      default -> out.stepFailed(index, null, name + ": " + failure.getMessage() + gaveUp);
    };
  }

  private RemoteSession session(int index, SshConnection connection)
      throws IOException, InterruptedException {
    RemoteSession session = sessions.get(connection);
    if (session != null) {
      return session;
    }
    // What Terraform prints, so users recognise it; never the secrets themselves.
    out.line(index, LogStream.SYSTEM, "Connecting to remote host via SSH...");
    out.line(index, LogStream.SYSTEM, "  Host: " + connection.host());
    out.line(index, LogStream.SYSTEM, "  User: " + connection.user());
    out.line(index, LogStream.SYSTEM, "  Password: " + present(connection.password()));
    out.line(index, LogStream.SYSTEM, "  Private key: " + present(connection.privateKey()));
    out.line(index, LogStream.SYSTEM, "  Host key pinned: " + present(connection.hostKey()));
    if (!present(connection.hostKey())) {
      out.line(index, LogStream.SYSTEM, "  Known host keys: " + connection.knownHostKeys().size());
    }
    SshConnection.Proxy proxy = connection.proxy();
    if (proxy != null) {
      out.line(
          index,
          LogStream.SYSTEM,
          "  Proxy: "
              + proxy.where()
              + (proxy.user() == null
                  ? ""
                  : " (user " + proxy.user() + ", password: " + present(proxy.password()) + ")"));
    }
    for (SshConnection.Bastion bastion : connection.bastions()) {
      out.line(index, LogStream.SYSTEM, "  Bastion: " + bastion.user() + "@" + bastion.host());
    }
    session = connector.connect(connection, notice -> out.line(index, LogStream.SYSTEM, notice));
    session.learnedHostKeys().forEach(out::hostKeyLearned);
    out.line(index, LogStream.SYSTEM, "Connected!");
    sessions.put(connection, session);
    return session;
  }

  private static boolean present(String value) {
    return value != null && !value.isEmpty();
  }

  private static long deadlineOf(ProvisionerStep step) {
    return step.timeoutSeconds() > 0
        ? System.nanoTime() + Duration.ofSeconds(step.timeoutSeconds()).toNanos()
        : Long.MAX_VALUE;
  }

  private static Duration remaining(long deadline, ProvisionerStep step) throws TimeoutException {
    if (step.timeoutSeconds() <= 0) {
      return null;
    }
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new TimeoutException();
    }
    return Duration.ofNanos(left);
  }

  private static void removeQuietly(RemoteSession session, String path) {
    try {
      session.remove(path);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not remove the uploaded script {}: {}", path, e.toString());
    }
  }

  /** Why a key of {@code files} may not be written under the destination, or null. */
  private static String relativePathProblem(String path) {
    if (path.isEmpty() || path.startsWith("/")) {
      return "is not a relative path";
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        return "has an empty, \".\" or \"..\" segment";
      }
    }
    return null;
  }
}
