package dev.stagecraft.state;

import dev.stagecraft.platform.tracing.Tracing;
import io.micronaut.runtime.Micronaut;

/** Entry point of the state-service process. */
public final class StateApplication {
  private StateApplication() {}

  public static void main(String[] args) {
    // traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none (docs/adr/0083)
    Tracing.start("state-service");
    Micronaut.run(StateApplication.class, args);
  }
}
