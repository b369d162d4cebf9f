package dev.stagecraft.executor;

import dev.stagecraft.platform.tracing.Tracing;
import io.micronaut.runtime.Micronaut;

/** Entry point of the executor-service process. */
public final class ExecutorApplication {
  private ExecutorApplication() {}

  public static void main(String[] args) {
    // traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none (docs/adr/0083)
    Tracing.start("executor-service");
    Micronaut.run(ExecutorApplication.class, args);
  }
}
