package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.service.run.journal.RunJournal;
import java.time.Clock;
import java.time.Instant;

/** Runs as the coordinator makes them, for tests of other packages that record them. */
public final class RunFixtures {
  private RunFixtures() {}

  /** A run of {@code request} that has not started, with an empty journal. */
  public static Run run(String id, RunRequest request, Instant createdAt, Clock clock) {
    return new Run(id, request, createdAt, new RunJournal(clock));
  }
}
