package dev.stagecraft.planner;

import io.micronaut.runtime.Micronaut;

/** Entry point of the planner-service process. */
public final class PlannerApplication {
  private PlannerApplication() {}

  public static void main(String[] args) {
    Micronaut.run(PlannerApplication.class, args);
  }
}
