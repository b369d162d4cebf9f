package dev.stagecraft.chaos.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.StepExecution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalFileTest {
  static final TokenManifest MANIFEST =
      new TokenManifest(
          Map.of(
              "tok-1",
                  new TokenManifest.Step(
                      "r-1", "r-1/null_resource.a", "r-1/null_resource.a#0", false),
              "tok-2",
                  new TokenManifest.Step(
                      "r-1", "r-1/null_resource.b", "r-1/null_resource.b#1", true)));

  @Test
  void readsOneExecutionPerLineAndNamesEachUnusableLine(@TempDir Path dir) throws IOException {
    Path journal = dir.resolve("journal.log");
    Files.writeString(
        journal,
        "2026-12-05T10:00:02.125Z tok-1\n"
            + "\n"
            + "2026-12-05T10:00:03Z tok-2\n"
            + "yesterday tok-1\n"
            + "2026-12-05T10:00:04Z tok-9\n"
            + "2026-12-05T10:00:05Z tok-1 extra\n"
            + "2026-12-05T10:00:06Z tok-1"); // cut before its newline: still whole

    JournalFile.Reading reading = JournalFile.read(journal, "executor-2", MANIFEST);

    assertThat(reading.executions())
        .containsExactly(
            new StepExecution(
                "executor-2",
                "tok-1",
                "r-1",
                "r-1/null_resource.a",
                "r-1/null_resource.a#0",
                false,
                Instant.parse("2026-12-05T10:00:02.125Z")),
            new StepExecution(
                "executor-2",
                "tok-2",
                "r-1",
                "r-1/null_resource.b",
                "r-1/null_resource.b#1",
                true,
                Instant.parse("2026-12-05T10:00:03Z")),
            new StepExecution(
                "executor-2",
                "tok-1",
                "r-1",
                "r-1/null_resource.a",
                "r-1/null_resource.a#0",
                false,
                Instant.parse("2026-12-05T10:00:06Z")));
    assertThat(reading.problems())
        .containsExactly(
            journal + ":4: \"yesterday\" is not an ISO-8601 instant (e.g. 2026-12-05T10:00:02Z)",
            journal + ":5: token tok-9 is in no manifest entry: which step ran it?",
            journal
                + ":6: expected \"<instant> <token>\", found \"2026-12-05T10:00:05Z tok-1 extra\"");
  }
}
