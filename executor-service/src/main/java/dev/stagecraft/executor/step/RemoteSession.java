package dev.stagecraft.executor.step;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Port: one authenticated SSH connection to a host, used by the steps of an action one after the
 * other (not concurrently).
 *
 * <p>Commands run through the remote user's login shell, like {@code ssh host command}. Files are
 * written over SFTP.
 */
public interface RemoteSession extends AutoCloseable {

  /** Receives a command's output line by line; calls may come from two threads at once. */
  @FunctionalInterface
  interface LineSink {
    void line(LogStream stream, String line);
  }

  /**
   * Runs a command and reports its stdout and stderr line by line as they are printed.
   *
   * @param timeout how long the command may run; {@code null} for no limit. When it is exceeded the
   *     command and everything it started are killed and {@link TimeoutException} is thrown.
   * @return the command's exit status
   * @throws IOException when the connection broke or the command ended without an exit status (e.g.
   *     killed by a signal)
   * @throws InterruptedException when the calling thread was interrupted; the command was killed
   */
  int exec(String command, LineSink output, Duration timeout)
      throws IOException, InterruptedException, TimeoutException;

  /**
   * Writes {@code content} to the remote {@code path} (replacing an existing file) and sets its
   * permission bits to {@code mode}; missing parent directories are created.
   */
  void upload(String path, byte[] content, int mode) throws IOException;

  /** Removes a remote file; a missing file is not an error. */
  void remove(String path) throws IOException;

  /** Closes the connection; never throws. */
  @Override
  void close();
}
