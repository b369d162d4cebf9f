package dev.stagecraft.lock;

import dev.stagecraft.platform.tracing.Tracing;
import io.micronaut.runtime.Micronaut;

/** Entry point of the lock-service process. */
public final class LockApplication {
  private LockApplication() {}

  public static void main(String[] args) {
    // traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none (docs/adr/0083)
    Tracing.start("lock-service");
    Micronaut.run(LockApplication.class, args);
  }
}
