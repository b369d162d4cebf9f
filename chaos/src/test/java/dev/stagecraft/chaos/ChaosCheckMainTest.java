package dev.stagecraft.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChaosCheckMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return ChaosCheckMain.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        Map.of(),
        Clock.fixed(Fixtures.t(100), ZoneOffset.UTC));
  }

  private static Path write(Path dir, String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  @Test
  void failsWithTheReportWhenAStepRanTwice(@TempDir Path dir) throws IOException {
    Path manifest =
        write(
            dir,
            "manifest",
            "# token run action step\ntok-1 r-1 r-1/a r-1/a#0 once\ntok-2 r-1 r-1/b r-1/b#0 retryable\n");
    Path one =
        write(
            dir, "executor-1.journal", "2026-12-05T10:00:02Z tok-1\n2026-12-05T10:00:03Z tok-2\n");
    Path two =
        write(
            dir, "executor-2.journal", "2026-12-05T10:00:31Z tok-1\n2026-12-05T10:00:32Z tok-2\n");
    Path faults =
        write(dir, "faults", "2026-12-05T10:00:05Z kill executor-1 2026-12-05T10:00:07Z\n");
    Path report = dir.resolve("report.md");

    int status =
        run(
            "--journal",
            "executor-2=" + two,
            "--journal",
            "executor-1=" + one,
            "--manifest",
            manifest.toString(),
            "--faults",
            faults.toString(),
            "--title",
            "soak seed 7",
            "--out",
            report.toString());

    assertThat(status).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "chaos-check: 0 runs, 1 faults, 3 violations, 0 source problems; report in "
                + report
                + "\n");
    String text = Files.readString(report);
    assertThat(text)
        .startsWith("# soak seed 7\n")
        .contains("| kill | 1 |")
        .contains("| steps at most once | step-executed-twice | 1 |")
        // no action events were read: each step that ran is unreported
        .contains("| steps at most once | step-run-unreported | 2 |")
        .contains(
            "step r-1/r-1/a#0 ran 2 times (executor-1 at 2026-12-05T10:00:02Z, executor-2 at");
  }

  @Test
  void aCommittedTriggerOrPushNotFoundDownstreamIsAViolation(@TempDir Path dir) throws IOException {
    Path doors =
        write(
            dir,
            "doors",
            "2026-12-05T10:00:01Z trigger soak-1 run-1 stagecraft.run-requests 0 17 evt-1\n"
                + "2026-12-05T10:00:02Z push soak-1 tf-0 4 lock-a\n"
                + "2026-12-05T10:00:03Z push soak-1 tf-0\n");
    Path report = dir.resolve("report.md");

    // no database: neither the run nor the write can be found
    int status = run("--doors", doors.toString(), "--out", report.toString());

    assertThat(status).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("0 runs, 0 faults, 2 violations, 1 source problems");
    assertThat(Files.readString(report))
        .contains("| no lost events | event-lost | 2 |")
        .contains("event run-1 on stagecraft.run-requests→planner.runs was committed upstream")
        .contains("event soak-1/tf-0@4 on tf-backend push→state.state_events was committed")
        .contains(doors + ":3: expected");
  }

  @Test
  void passesWhenNothingIsBroken(@TempDir Path dir) throws IOException {
    Path report = dir.resolve("report.md");

    assertThat(run("--out", report.toString())).isZero();
    assertThat(Files.readString(report)).contains("| violations | 0 |");
  }

  @Test
  void aBadManifestLineIsNamedAndNoReportIsWritten(@TempDir Path dir) throws IOException {
    Path manifest = write(dir, "manifest", "tok-1 r-1 r-1/a r-1/a#0 sometimes\n");
    Path journal = write(dir, "j", "");
    Path report = dir.resolve("report.md");

    int status =
        run(
            "--journal",
            "h=" + journal,
            "--manifest",
            manifest.toString(),
            "--out",
            report.toString());

    assertThat(status).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "chaos-check: "
                + manifest
                + ":1: expected \"<token> <runId> <actionId> <stepId> <retryable|once>\", found"
                + " \"tok-1 r-1 r-1/a r-1/a#0 sometimes\"\n");
    assertThat(report).doesNotExist();
  }

  @Test
  void saysWhatIsMissingFromTheCommand() {
    assertThat(run("--bound", "60")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("chaos-check: --out REPORT.md is required\nusage: chaos-check ");
  }

  @Test
  void aDatabaseWithoutItsPasswordIsRefused(@TempDir Path dir) {
    assertThat(
            run(
                "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x",
                "--db-user", "u",
                "--out", dir.resolve("r.md").toString()))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "chaos-check: --jdbc-url needs the database password in STAGECRAFT_CHAOS_DB_PASSWORD\n");
  }
}
