package dev.stagecraft.state;

import io.micronaut.runtime.Micronaut;

/** Entry point of the state-service process. */
public final class StateApplication {
  private StateApplication() {}

  public static void main(String[] args) {
    Micronaut.run(StateApplication.class, args);
  }
}
