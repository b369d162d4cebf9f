package dev.stagecraft.chaos.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.source.JournalFile;
import dev.stagecraft.chaos.source.TokenManifest;
import dev.stagecraft.sshtestkit.OpenSshServer;
import dev.stagecraft.sshtestkit.TcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workload's steps and its manifest agree with the checker's readers: every step's command, run
 * by a shell with {@code var.rev} filled in (as the planner interpolates it), appends a journal
 * line that {@link JournalFile} reads as that step of that run, per the manifest lines {@link
 * TokenManifest} reads.
 */
class SoakConfigsTest {
  private static final Pattern COMMAND = Pattern.compile("command = \"(.*)\"");
  private static final Pattern INLINE = Pattern.compile("\"(echo [^\"]*)\",");

  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();

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

  /**
   * The remote shape, against a real sshd through a proxy as in the soak: each host's step, run
   * over SSH with the key the run's sensitive variable carries, journals on that host a token the
   * manifest maps to its run and step; the key is in no configuration text, the host key is pinned.
   */
  @Test
  void theRemoteShapesStepsJournalOnTheirOwnHostTokensTheManifestMapsToTheirSteps(@TempDir Path dir)
      throws Exception {
    try (TcpProxy proxy = new TcpProxy(SSHD.host(), SSHD.port())) {
      List<SoakNetwork.SshHost> hosts = new ArrayList<>();
      for (int i = 1; i <= 2; i++) {
        hosts.add(
            new SoakNetwork.SshHost(
                "ssh-" + i,
                proxy.host(),
                proxy.port(),
                SSHD.user(),
                SSHD.ed25519Key(),
                SSHD.hostKey(),
                Files.createFile(dir.resolve("ssh-" + i + ".journal"))));
      }
      SoakConfigs.Shape s = SoakConfigs.shape(1, dir.resolve("journal"), hosts);
      assertThat(s.name()).isEqualTo("remote");
      assertThat(s.mainTf())
          .doesNotContain(SSHD.ed25519Key().strip())
          .contains("private_key = var.ssh_key_1", "private_key = var.ssh_key_2")
          .contains("sensitive = true", "host_key    = \"" + SSHD.hostKey() + "\"")
          .contains("port        = " + proxy.port());
      assertThat(hosts.getFirst().toString()).doesNotContain(SSHD.ed25519Key().strip());
      assertThat(s.variables("r1"))
          .containsEntry("rev", "r1")
          .containsEntry("ssh_key_1", SSHD.ed25519Key())
          .containsEntry("ssh_key_2", SSHD.ed25519Key());

      Matcher m = INLINE.matcher(s.mainTf());
      int host = 0;
      while (m.find()) {
        String command = m.group(1).replace("${var.rev}", "r1");
        Process p =
            new ProcessBuilder(
                    "ssh",
                    "-i",
                    SSHD.clientKeyFile().toString(),
                    "-p",
                    Integer.toString(proxy.port()),
                    "-o",
                    "StrictHostKeyChecking=no",
                    "-o",
                    "UserKnownHostsFile=/dev/null",
                    "-o",
                    "BatchMode=yes",
                    SSHD.user() + "@" + proxy.host(),
                    command)
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(command + ": " + output).isZero();
        host++;
      }
      assertThat(host).as("one step per host").isEqualTo(2);
      assertThat(proxy.accepted()).as("the steps went through the proxy").isEqualTo(2);

      Path manifest = dir.resolve("tokens");
      Files.write(manifest, s.manifestLines("r1", "run-1"));
      for (int i = 1; i <= 2; i++) {
        JournalFile.Reading reading =
            JournalFile.read(hosts.get(i - 1).journal(), "ssh-" + i, TokenManifest.read(manifest));
        assertThat(reading.problems()).isEmpty();
        assertThat(reading.executions())
            .extracting(e -> e.host() + " " + e.runId() + " " + e.stepId())
            .containsExactly("ssh-" + i + " run-1 run-1/null_resource.ssh" + i + "#0");
      }
    }
  }
}
