package dev.stagecraft.chaos.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class SoakOptionsTest {
  private static final Path REPO = Path.of("/repo");

  @Test
  void parsesTheCommandLineOfDevChaos() {
    SoakOptions o =
        SoakOptions.parse(
            new String[] {
              "--minutes",
              "30",
              "--seed",
              "42",
              "--faults",
              "kill,stop",
              "--fault-gap",
              "12.5",
              "--workers",
              "8",
              "--data-dir",
              "/tmp/soak"
            },
            REPO);
    assertThat(o.workload()).isEqualTo(Duration.ofMinutes(30));
    assertThat(o.seed()).isEqualTo(42);
    assertThat(o.faultKinds()).isEqualTo(EnumSet.of(FaultKind.KILL, FaultKind.STOP));
    assertThat(o.faultGap()).isEqualTo(Duration.ofMillis(12_500));
    assertThat(o.workers()).isEqualTo(8);
    assertThat(o.dataDir()).isEqualTo(Path.of("/tmp/soak"));
    assertThat(o.repoDir()).isEqualTo(REPO);
    assertThat(SoakOptions.parse(new String[] {"--faults", "none"}, REPO).faultKinds()).isEmpty();
    assertThat(
            SoakOptions.parse(new String[] {"--faults", "kafka-restart,kill"}, REPO).faultKinds())
        .isEqualTo(EnumSet.of(FaultKind.KAFKA_RESTART, FaultKind.KILL));
  }

  @Test
  void badInputIsRefusedNamingTheOptionAndWhatItExpects() {
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--minutes", "soon"}, REPO))
        .hasMessage("--minutes expects a positive number, found \"soon\"");
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--seed"}, REPO))
        .hasMessage("--seed needs a value");
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--faults", "kill,reboot"}, REPO))
        .hasMessage(
            "unknown fault kind \"reboot\"; known: kill, stop, postgres-restart, kafka-restart,"
                + " sever, black-hole");
    // a trailing comma is an empty kind, as a leading one is
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--faults", "kill,"}, REPO))
        .hasMessageStartingWith("unknown fault kind \"\"; known: kill,");
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--faults", ",kill"}, REPO))
        .hasMessageStartingWith("unknown fault kind \"\"; known: kill,");
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--workers", "0"}, REPO))
        .hasMessage("--workers expects a count of 1 or more, found 0");
    assertThatThrownBy(() -> SoakOptions.parse(new String[] {"--speed", "9"}, REPO))
        .hasMessage("unknown option --speed");
  }
}
