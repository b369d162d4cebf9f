package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.LearnedHostKey;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Port: one authenticated SSH connection to a host. An action's steps use it one after the other;
 * implementations must also allow operations from several threads at once (the {@link
 * RunConnectionPool} shares a connection between the actions of a run), each command on its own
 * channel.
 *
 * <p>Commands run through the remote user's login shell, like {@code ssh host command}. Files are
 * written over SFTP.
 */
public interface RemoteSession extends AutoCloseable {

  /** Receives a command's output line by line; calls may come from two threads at once. */
  @FunctionalInterface
  interface LineSink {
    void line(LogStream stream, String line);

    /**
     * Asked after each line: false when the sink wants no more output (the step printed more than
     * its limit), and the session then kills the command.
     */
    default boolean wantsMore() {
      return true;
    }
  }

  /**
   * Runs a command and reports its stdout and stderr line by line as they are printed.
   *
   * @param timeout how long the command may run; {@code null} for no limit. When it is exceeded the
   *     command and everything it started are killed and {@link TimeoutException} is thrown.
   * @return the command's exit status
   * @throws ConnectionLostException when the connection broke while the command ran (its effect is
   *     unknown)
   * @throws IOException when the command ended without an exit status (e.g. killed by a signal)
   * @throws InterruptedException when the calling thread was interrupted; the command was killed
   */
  int exec(String command, LineSink output, Duration timeout)
      throws IOException, InterruptedException, TimeoutException;

  /**
   * Writes {@code content} to the remote {@code path} (replacing an existing file) and sets its
   * permission bits to {@code mode}; missing parent directories are created.
   *
   * @throws ConnectionLostException when the connection broke meanwhile
   */
  void upload(String path, byte[] content, int mode) throws IOException;

  /** Removes a remote file; a missing file is not an error. */
  void remove(String path) throws IOException;

  /**
   * Host keys this session's connection accepted on first use (target and bastions): no key was
   * pinned or known for their host:port. The runner reports them in {@code action.finished}.
   */
  default List<LearnedHostKey> learnedHostKeys() {
    return List.of();
  }

  /**
   * Whether the connection is still usable, as far as the client knows without a round trip (a peer
   * that closed the connection or a failed keep-alive makes it false). The connection pool never
   * hands out a session that is not open. The default says yes.
   */
  default boolean isOpen() {
    return true;
  }

  /** Closes the connection; never throws. */
  @Override
  void close();

  /**
   * The connection broke (reset, closed by the peer, keep-alives unanswered) while a command ran or
   * a file was written: a transient failure, which a step marked safe to retry may be retried on.
   */
  final class ConnectionLostException extends IOException {
    private static final long serialVersionUID = 1L;

    public ConnectionLostException(String message) {
      super(message);
    }
  }
}
