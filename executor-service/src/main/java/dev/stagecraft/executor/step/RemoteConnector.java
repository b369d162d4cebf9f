package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Port: opens authenticated SSH sessions for {@code remote-exec} and {@code file} steps. The
 * implementation (sshj) lives in {@code dev.stagecraft.executor.adapter.ssh}.
 *
 * <p>An implementation retries refused or unanswered connections with backoff until the
 * connection's {@code timeoutSeconds} (default {@value #DEFAULT_TIMEOUT_SECONDS}) have passed, then
 * fails with an {@link IOException} whose message ends in {@code timeout - last error: ...}. A host
 * key that does not match the pinned {@code hostKey} fails at once ({@link
 * HostKeyMismatchException}) and nothing is run. Must be safe to call from many threads at once.
 */
public interface RemoteConnector {
  int DEFAULT_TIMEOUT_SECONDS = 300;

  /** A connector for executors that were built without SSH support: every connect fails. */
  RemoteConnector UNAVAILABLE =
      (connection, notices) -> {
        throw new IOException("this executor was started without an SSH connector");
      };

  /**
   * Connects and authenticates.
   *
   * @param notices receives human-readable messages worth showing to the user (e.g. the host key
   *     fingerprint accepted on first use); called on the calling thread
   * @throws IOException when no session could be opened before the connection timeout
   * @throws InterruptedException when the calling thread was interrupted while connecting
   */
  RemoteSession connect(SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException;

  /** The host presented a key other than the pinned one: permanent, never retried. */
  final class HostKeyMismatchException extends IOException {
    private static final long serialVersionUID = 1L;

    public HostKeyMismatchException(String message) {
      super(message);
    }
  }
}
