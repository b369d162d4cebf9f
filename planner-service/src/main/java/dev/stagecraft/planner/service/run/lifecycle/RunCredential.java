package dev.stagecraft.planner.service.run.lifecycle;

import java.util.Objects;

/**
 * The run's one-off state credential (docs/adr/0013), a secret: its {@link #toString} never shows
 * it, so a state, event or effect that carries it can be logged.
 */
public record RunCredential(String value) {
  public RunCredential {
    Objects.requireNonNull(value, "value");
  }

  @Override
  public String toString() {
    return "RunCredential[***]";
  }
}
