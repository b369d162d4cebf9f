package dev.stagecraft.schemas.control;

/** What travels on {@code stagecraft.control}: the planner's requests to every executor. */
public sealed interface ControlEvent permits RunCancelRequested {
  String runId();
}
