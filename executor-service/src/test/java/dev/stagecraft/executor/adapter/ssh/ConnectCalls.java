package dev.stagecraft.executor.adapter.ssh;

import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Connects on another thread, so that a test can wait for a refusal with a deadline instead of
 * hanging when the connector retries: the tests of the connector use it to show that a failure
 * comes back at once, long before the connection timeout they set.
 */
final class ConnectCalls {
  private ConnectCalls() {}

  /** {@code connector.connect(connection, notices)} on one of {@code threads}. */
  static CompletableFuture<RemoteSession> connectAsync(
      RemoteConnector connector,
      SshConnection connection,
      Consumer<String> notices,
      Executor threads) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return connector.connect(connection, notices);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        },
        threads);
  }

  /**
   * How the connect failed (the connector's own exception); an assertion error when it succeeded
   * (the session is closed) or did not end within 60 s (generous: every failure expected here comes
   * long before the connection timeouts the tests use).
   */
  static Throwable failureOf(CompletableFuture<RemoteSession> connecting) {
    try {
      connecting.get(60, TimeUnit.SECONDS).close();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return cause instanceof UncheckedIOException u ? u.getCause() : cause;
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("connect did not end within 60 s", e);
    }
    throw new AssertionError("connect succeeded");
  }
}
