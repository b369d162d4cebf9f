package dev.stagecraft.chaos.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.source.JournalFile;
import dev.stagecraft.chaos.source.TokenManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workload's steps and its manifest agree with the checker's readers: every step's command, run
 * by a shell with {@code var.rev} filled in (as the planner interpolates it), appends a journal
 * line that {@link JournalFile} reads as that step of that run, per the manifest lines {@link
 * TokenManifest} reads.
 */
class SoakConfigsTest {
  private static final Pattern COMMAND = Pattern.compile("command = \"(.*)\"");

  @Test
  void everyStepsCommandJournalsATokenTheManifestMapsToItsStep(@TempDir Path dir) throws Exception {
    Path journal = dir.resolve("journal");
    Path manifest = dir.resolve("tokens");
    List<String> manifestLines = new ArrayList<>();
    List<String> expectedSteps = new ArrayList<>();
    for (int shape = 0; shape < SoakConfigs.SHAPES; shape++) {
      SoakConfigs.Shape s = SoakConfigs.shape(shape, journal);
      String run = "run-" + shape;
      String rev = "s1w0n" + shape;
      manifestLines.addAll(s.manifestLines(rev, run));
      for (SoakConfigs.Resource r : s.resources()) {
        for (int i = 0; i < r.steps(); i++) {
          expectedSteps.add(run + "/" + run + "/" + r.address() + "#" + i);
        }
      }
      Matcher m = COMMAND.matcher(s.mainTf());
      while (m.find()) {
        String command = m.group(1).replace("${var.rev}", rev);
        Process p =
            new ProcessBuilder("bash", "-c", command.replaceAll("sleep [0-9.]+", "true")).start();
        assertThat(p.waitFor()).as(command).isZero();
      }
    }
    Files.write(manifest, manifestLines);

    JournalFile.Reading reading =
        JournalFile.read(journal, "executors", TokenManifest.read(manifest));

    assertThat(reading.problems()).isEmpty();
    assertThat(reading.executions())
        .extracting(e -> e.runId() + "/" + e.stepId())
        .containsExactlyInAnyOrderElementsOf(expectedSteps);
    assertThat(reading.executions()).noneMatch(StepExecution::retryable);
    assertThat(expectedSteps).hasSize(3 + 4 + 2);
  }
}
