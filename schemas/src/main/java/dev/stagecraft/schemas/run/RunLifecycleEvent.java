package dev.stagecraft.schemas.run;

/** What travels on {@code stagecraft.run-events}: a run's lifecycle, as bots follow it. */
public sealed interface RunLifecycleEvent permits RunTransitioned {
  String runId();
}
