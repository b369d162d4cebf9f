package dev.stagecraft.lock;

import io.micronaut.runtime.Micronaut;

/** Entry point of the lock-service process. */
public final class LockApplication {
  private LockApplication() {}

  public static void main(String[] args) {
    Micronaut.run(LockApplication.class, args);
  }
}
