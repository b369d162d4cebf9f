package dev.stagecraft.executor.adapter;

import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.platform.tracing.Tracing;
import dev.stagecraft.schemas.action.SshConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Counts the SSH connection attempts of another {@link RemoteConnector} and its failures by class
 * (docs/operations.md "Metrics"): {@code
 * stagecraft_ssh_connections_total{outcome="opened"|"failed"}} and {@code
 * stagecraft_ssh_connection_failures_total{class}}, the class being the simple name of the
 * exception (a bounded set; never a host or a message). Each attempt is a span {@code ssh connect}.
 *
 * <p>Thread-safe: holds no state of its own; the connector it wraps must be.
 */
final class MeteredRemoteConnector implements RemoteConnector {
  private final RemoteConnector connector;
  private final MeterRegistry meters;
  private final Counter opened;
  private final Counter failed;

  MeteredRemoteConnector(RemoteConnector connector, MeterRegistry meters) {
    this.connector = connector;
    this.meters = meters;
    this.opened = attempts(meters, "opened");
    this.failed = attempts(meters, "failed");
  }

  private static Counter attempts(MeterRegistry meters, String outcome) {
    return Counter.builder("stagecraft.ssh.connections")
        .description("SSH connection attempts of this executor, by outcome")
        .tag("outcome", outcome)
        .register(meters);
  }

  @Override
  public RemoteSession connect(SshConnection connection, Consumer<String> notices)
      throws IOException, InterruptedException {
    // a span per connection attempt, child of the action's (docs/adr/0083); no host or user in it
    Span span =
        Tracing.tracer().spanBuilder("ssh connect").setSpanKind(SpanKind.CLIENT).startSpan();
    try {
      RemoteSession session = connector.connect(connection, notices);
      opened.increment();
      return session;
    } catch (IOException | InterruptedException | RuntimeException e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      failed.increment();
      Counter.builder("stagecraft.ssh.connection.failures")
          .description("SSH connection attempts that failed, by the failure's class")
          .tag("class", e.getClass().getSimpleName())
          .register(meters)
          .increment();
      throw e;
    } finally {
      span.end();
    }
  }
}
