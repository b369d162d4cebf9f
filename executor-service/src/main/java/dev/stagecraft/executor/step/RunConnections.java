package dev.stagecraft.executor.step;

import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * One action's lease on the {@link RunConnectionPool}: the {@link RemoteConnector} its steps use.
 * {@link #connect} borrows a connection shared with the other actions of the same tenant and run
 * (see the pool for what must match); the returned session's {@code close} gives it back. {@link
 * #close} says the action ended; the run's last lease to close starts the run's linger, after which
 * its connections close.
 *
 * <p>Every other method of the port is forwarded to the pool's delegate unchanged.
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 */
public final class RunConnections implements RemoteConnector, AutoCloseable {
  private final RunConnectionPool pool;
  private final RunConnectionPool.Run run; // null: no run id, nothing is shared
  private boolean closed; // guarded by this

  RunConnections(RunConnectionPool pool, RunConnectionPool.Run run) {
    this.pool = pool;
    this.run = run;
  }

  @Override
  public RemoteSession connect(SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException {
    if (run == null) {
      return pool.connectUnpooled(connection, notices);
    }
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("this action's connection lease is already closed");
      }
    }
    return pool.borrow(run, connection, notices);
  }

  /** The action ended: its run may end here. Sessions it borrowed should be closed before. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (run != null) {
      pool.leaseClosed(run);
    }
  }
}
