package dev.stagecraft.planner.service.run;

import java.util.Locale;

/** The run lifecycle (docs/runs.md). Terminal statuses never change again. */
public enum RunStatus {
  PENDING,
  QUEUED,
  PLANNING,
  PLANNED,
  PLANNED_AND_FINISHED,
  APPLYING,
  APPLIED,
  ERRORED,
  CANCELED,
  DISCARDED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isTerminal() {
    return this == PLANNED_AND_FINISHED
        || this == APPLIED
        || this == ERRORED
        || this == CANCELED
        || this == DISCARDED;
  }
}
