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
 * key that does not match the pinned {@code hostKey}, or else none of the {@code knownHostKeys},
 * fails at once ({@link HostKeyMismatchException}), before authentication, and nothing is run. A
 * key accepted because none was pinned or known is reported by {@link
 * RemoteSession#learnedHostKeys()}. Must be safe to call from many threads at once.
 *
 * <p><b>Transient or permanent.</b> Refused, reset, unreachable and unanswered connections are
 * transient: retried until the timeout, then a plain {@link IOException}. Failures that retrying
 * cannot fix — a rejected host key, rejected credentials ({@link AuthenticationFailedException}),
 * an unreadable key — are {@link PermanentConnectionException}s, thrown at once; callers must not
 * retry them either.
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

  /** A connection failure that retrying cannot fix; never retried. */
  class PermanentConnectionException extends IOException {
    private static final long serialVersionUID = 1L;

    public PermanentConnectionException(String message) {
      super(message);
    }
  }

  /**
   * The server rejected every credential offered (wrong key, password or user): permanent, never
   * retried. The message names {@code user@host:port} and the methods tried, never a secret.
   */
  final class AuthenticationFailedException extends PermanentConnectionException {
    private static final long serialVersionUID = 1L;

    public AuthenticationFailedException(String message) {
      super(message);
    }
  }

  /**
   * The host presented a key other than the pinned or known one(s): permanent, never retried. The
   * message names the host:port, the expected and offered fingerprints and how to fix it.
   */
  final class HostKeyMismatchException extends PermanentConnectionException {
    private static final long serialVersionUID = 1L;

    public HostKeyMismatchException(String message) {
      super(message);
    }
  }
}
