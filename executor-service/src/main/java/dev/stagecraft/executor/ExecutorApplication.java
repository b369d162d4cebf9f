package dev.stagecraft.executor;

import io.micronaut.runtime.Micronaut;

/** Entry point of the executor-service process. */
public final class ExecutorApplication {
  private ExecutorApplication() {}

  public static void main(String[] args) {
    Micronaut.run(ExecutorApplication.class, args);
  }
}
