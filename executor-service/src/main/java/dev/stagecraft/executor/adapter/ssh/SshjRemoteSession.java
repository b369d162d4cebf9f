package dev.stagecraft.executor.adapter.ssh;

import dev.stagecraft.executor.step.LogStream;
import dev.stagecraft.executor.step.OutputLines;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.LearnedHostKey;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;
import net.schmizz.sshj.sftp.FileAttributes;
import net.schmizz.sshj.sftp.OpenMode;
import net.schmizz.sshj.sftp.RemoteFile;
import net.schmizz.sshj.sftp.Response;
import net.schmizz.sshj.sftp.SFTPClient;
import net.schmizz.sshj.sftp.SFTPException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RemoteSession} on one sshj connection (and the bastion connection it tunnels through, if
 * any).
 *
 * <p><b>Killing a command.</b> Closing an SSH channel does not stop a command that runs without a
 * terminal (it only loses its pipes). So every command is prefixed with {@code echo stagecraft-pid
 * $$ >&2}: sshd starts the user's shell as a session and process-group leader, so that pid names
 * the group of everything the command started. On timeout or interrupt the runner sends {@code kill
 * -KILL -- -<pid>} on a second channel, then closes the first. The marker line is consumed, never
 * reported.
 *
 * <p>Concurrency: thread-safe. The connection pool shares one session between actions, so several
 * commands may run at once, each on its own channel; uploads share one SFTP channel, whose requests
 * sshj multiplexes. Each command gets two virtual reader threads, which call the line sink
 * concurrently.
 */
final class SshjRemoteSession implements RemoteSession {
  private static final Logger LOG = LoggerFactory.getLogger(SshjRemoteSession.class);
  private static final String PID_MARKER = "stagecraft-pid ";
  private static final Pattern PID_LINE = Pattern.compile("stagecraft-pid (\\d+)");
  private static final Duration EXIT_STATUS_WAIT = Duration.ofSeconds(5);
  private static final Duration KILL_WAIT = Duration.ofSeconds(5);
  private static final int CHUNK = 32 * 1024;

  private final SSHClient client;
  private final List<SSHClient> hops;
  private final String where;
  private volatile String lostBecause;
  private SFTPClient sftp; // guarded by this
  private volatile List<LearnedHostKey> learned = List.of();

  /**
   * @param client the target's connection
   * @param hops the bastion connections it tunnels through, nearest first (closed after it, in
   *     reverse order)
   * @param where {@code user@host:port} of the target, for messages
   */
  SshjRemoteSession(SSHClient client, List<SSHClient> hops, String where) {
    this.client = client;
    this.hops = List.copyOf(hops);
    this.where = where;
    // sshj reports why the transport died (keep-alives unanswered, EOF, reset) here.
    client
        .getTransport()
        .setDisconnectListener(
            (reason, message) -> {
              if (lostBecause == null) {
                lostBecause = message == null || message.isBlank() ? reason.toString() : message;
              }
            });
  }

  /**
   * Whether the transport is gone: a failure now is a lost connection, not the command's. sshj
   * reports the disconnect before it fails the channels, but marks the transport closed only after,
   * hence both checks.
   */
  private boolean isLost() {
    return lostBecause != null || !client.getTransport().isRunning();
  }

  private ConnectionLostException lost(String during, Throwable cause) {
    String why = lostBecause;
    if (why == null && cause != null && cause.getMessage() != null) {
      why = cause.getMessage();
    }
    ConnectionLostException e =
        new ConnectionLostException(
            "connection to "
                + where
                + " lost "
                + during
                + (why == null ? "" : " (" + why + ")")
                + "; its effect is unknown");
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  /** Set by the connector before it hands the session out. */
  void learned(List<LearnedHostKey> keys) {
    learned = List.copyOf(keys);
  }

  @Override
  public List<LearnedHostKey> learnedHostKeys() {
    return learned;
  }

  @Override
  public int exec(String command, LineSink output, Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    try {
      return run(command, output, timeout);
    } catch (ConnectionLostException e) {
      throw e;
    } catch (IOException e) {
      if (isLost()) {
        throw lost("while the command ran", e);
      }
      throw e;
    }
  }

  private int run(String command, LineSink output, Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
    Session session = client.startSession();
    try {
      Session.Command cmd = session.exec("echo " + PID_MARKER + "$$ >&2; " + command);
      ProcessGroup group = new ProcessGroup();
      Runnable stop = () -> kill(group.stop());
      Thread stdout = pump(cmd.getInputStream(), LogStream.STDOUT, output, null, stop);
      Thread stderr = pump(cmd.getErrorStream(), LogStream.STDERR, output, group, stop);
      try {
        if (!joinUntil(stdout, deadline) || !joinUntil(stderr, deadline)) {
          kill(group.stop());
          throw new TimeoutException("command timed out");
        }
      } catch (InterruptedException e) {
        kill(group.stop());
        throw e;
      }
      cmd.join(EXIT_STATUS_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      Integer status = cmd.getExitStatus();
      if (status == null && isLost()) {
        throw lost("while the command ran", null);
      }
      if (status == null) {
        throw new IOException(
            "the command ended without an exit status"
                + (cmd.getExitSignal() == null
                    ? ""
                    : " (killed by signal " + cmd.getExitSignal() + ")"));
      }
      return status;
    } finally {
      try {
        session.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing the command channel failed", e);
      }
    }
  }

  /**
   * The remote command's process group, read from the marker line on its standard error, and
   * whether it was asked to stop before that line was read: a command flooding its standard output
   * can reach the step's output limit first, and it must still be killed once its group is known
   * (else its output is drained for ever). Thread-safe.
   */
  static final class ProcessGroup {
    private String pid;
    private boolean stopWanted;

    /** Records the group; true when a stop was asked before: the caller stops it now. */
    synchronized boolean known(String id) {
      pid = id;
      return stopWanted;
    }

    /** Asks for a stop; the group to kill, or null when not known yet (then killed once known). */
    synchronized String stop() {
      stopWanted = true;
      return pid;
    }
  }

  private static boolean joinUntil(Thread thread, long deadline) throws InterruptedException {
    if (deadline == Long.MAX_VALUE) {
      thread.join();
      return true;
    }
    long left = deadline - System.nanoTime();
    return left > 0 && thread.join(Duration.ofNanos(left));
  }

  /**
   * Reads lines to the sink until end of stream ({@link OutputLines}: a line is never held whole
   * beyond its bounded length); with {@code group} set, the first marker line is taken as the
   * command's process group and not reported (and {@code stop} runs then when a stop was asked
   * before). When the sink wants no more, {@code stop} kills the command and the rest is drained
   * unread.
   */
  private static Thread pump(
      InputStream in, LogStream stream, LineSink output, ProcessGroup group, Runnable stop) {
    return Thread.ofVirtual()
        .name("remote-exec-" + stream.wireName())
        .start(
            () -> {
              boolean[] wantPid = {group != null};
              try (in) {
                OutputLines.pump(
                    in,
                    line -> {
                      if (wantPid[0]) {
                        Matcher m = PID_LINE.matcher(line);
                        if (m.matches()) {
                          wantPid[0] = false;
                          if (group.known(m.group(1))) {
                            stop.run();
                          }
                          return true;
                        }
                      }
                      output.line(stream, line);
                      if (output.wantsMore()) {
                        return true;
                      }
                      stop.run();
                      return false;
                    });
              } catch (IOException e) {
                // The channel closed (command killed, connection lost): nothing more to read.
              }
            });
  }

  /**
   * Kills the command's process group over a second channel. Runs even when the caller was
   * interrupted (the flag is restored afterwards); failures are logged, the channel is closed by
   * the caller regardless.
   */
  private void kill(String pid) {
    if (pid == null) {
      return;
    }
    boolean interrupted = Thread.interrupted();
    try (Session session = client.startSession()) {
      Session.Command kill = session.exec("kill -KILL -- -" + pid + " 2>/dev/null");
      kill.join(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not kill remote process group {}: {}", pid, e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void upload(String path, byte[] content, int mode) throws IOException {
    try {
      write(path, content, mode);
    } catch (IOException e) {
      if (isLost()) {
        throw lost("while writing " + path, e);
      }
      throw e;
    }
  }

  private void write(String path, byte[] content, int mode) throws IOException {
    SFTPClient files = sftp();
    int slash = path.lastIndexOf('/');
    if (slash > 0) {
      files.mkdirs(path.substring(0, slash));
    }
    try (RemoteFile file =
        files.open(
            path,
            EnumSet.of(OpenMode.WRITE, OpenMode.CREAT, OpenMode.TRUNC),
            new FileAttributes.Builder().withPermissions(mode).build())) {
      for (int offset = 0; offset < content.length; offset += CHUNK) {
        file.write(offset, content, offset, Math.min(CHUNK, content.length - offset));
      }
    }
    // The mode given at creation is subject to the server's umask and ignored for existing files.
    files.chmod(path, mode);
  }

  @Override
  public void remove(String path) throws IOException {
    try {
      sftp().rm(path);
    } catch (SFTPException e) {
      if (e.getStatusCode() != Response.StatusCode.NO_SUCH_FILE) {
        throw e;
      }
    }
  }

  private synchronized SFTPClient sftp() throws IOException {
    if (sftp == null) {
      sftp = client.newSFTPClient();
    }
    return sftp;
  }

  @Override
  public boolean isOpen() {
    return client.isConnected()
        && client.isAuthenticated()
        && hops.stream().allMatch(SSHClient::isConnected);
  }

  @Override
  public void close() {
    synchronized (this) {
      closeQuietly(sftp);
      sftp = null;
    }
    closeQuietly(client);
    for (SSHClient hop : hops.reversed()) {
      closeQuietly(hop);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.debug("closing the SSH connection failed", e);
    }
  }
}
