package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalExecArguments}, {@link RemoteExecArguments} and {@link FileArguments} alone: a parsed
 * provisioner block and a given connection in, a step or errors at file:line:col out.
 */
class ProvisionerArgumentsTest {
  private static final SshConnection SSH =
      new SshConnection("10.0.0.1", 22, "root", null, null, null, null, 300, List.of());

  @TempDir Path dir;
  private final Set<String> secrets = new HashSet<>();

  private StepScope scope(String provisioner) {
    return StepScopes.scope(
        StepScopes.resource("resource \"terraform_data\" \"app\" {\n" + provisioner + "}\n"),
        dir,
        secrets);
  }

  @Test
  void localExecTakesItsArgumentsAndMarksTheStepSensitiveWithASecretInIt() {
    StepScope scope =
        scope(
            """
              provisioner "local-exec" {
                command     = "deploy ${var.secret}"
                interpreter = ["/bin/sh", "-c"]
                environment = { STAGE = "prod" }
                working_dir = "/srv"
                quiet       = true
              }
            """);
    StepArguments args = StepScopes.arguments(scope);
    ProvisionerStep step = LocalExecArguments.resolve(scope, args, 30, 2);
    assertThat(scope.diagnostics().hasErrors()).as(scope.diagnostics().toString()).isFalse();
    assertThat(step.command()).isEqualTo("deploy " + StepScopes.SECRET);
    assertThat(step.interpreter()).containsExactly("/bin/sh", "-c");
    assertThat(step.environment()).containsExactly(Map.entry("STAGE", "prod"));
    assertThat(step.workingDir()).isEqualTo("/srv");
    assertThat(step.quiet()).isTrue();
    assertThat(step.sensitive()).isTrue();
    assertThat(step.connection()).isNull();
    assertThat(step.timeoutSeconds()).isEqualTo(30);
    assertThat(step.retries()).isEqualTo(2);
    assertThat(secrets).contains("deploy " + StepScopes.SECRET);
  }

  @Test
  void localExecRefusesAnInterpreterThatIsNotAListOfStrings() {
    StepScope scope =
        scope(
            """
              provisioner "local-exec" {
                command     = "true"
                interpreter = "/bin/sh"
              }
            """);
    LocalExecArguments.resolve(scope, StepScopes.arguments(scope), 0, 0);
    Diagnostic d = scope.diagnostics().errors().get(0);
    assertThat(d.detail())
        .isEqualTo("The argument \"interpreter\" must be a list of strings; found string.");
    assertThat(d.range().toString()).isEqualTo("main.tf:4:5");
  }

  @Test
  void remoteExecReadsItsScriptsRelativeToTheConfigurationDirectory() throws IOException {
    Files.writeString(dir.resolve("one.sh"), "echo one\n");
    Files.writeString(dir.resolve("two.sh"), "echo two\n");
    StepScope scope =
        scope(
            """
              provisioner "remote-exec" {
                scripts = ["one.sh", "two.sh"]
              }
            """);
    ProvisionerStep step =
        RemoteExecArguments.resolve(scope, StepScopes.arguments(scope), SSH, 0, 0);
    assertThat(step.scripts()).containsExactly("echo one\n", "echo two\n");
    assertThat(step.inline()).isEmpty();
    assertThat(step.connection()).isEqualTo(SSH);
  }

  @Test
  void remoteExecRefusesAMissingScriptAtItsArgument() {
    StepScope scope =
        scope(
            """
              provisioner "remote-exec" {
                script = "missing.sh"
              }
            """);
    assertThat(RemoteExecArguments.resolve(scope, StepScopes.arguments(scope), SSH, 0, 0)).isNull();
    Diagnostic d = scope.diagnostics().errors().get(0);
    assertThat(d.summary()).isEqualTo("No such file");
    assertThat(d.detail())
        .isEqualTo(
            "The script \"missing.sh\" does not exist (relative to the configuration directory);"
                + " check the path.");
    assertThat(d.range().toString()).isEqualTo("main.tf:3:5");
  }

  @Test
  void fileUploadsADirectorySourceUnderItsNameAndNeedsADestination() throws IOException {
    Files.createDirectories(dir.resolve("conf/sub"));
    Files.writeString(dir.resolve("conf/sub/a.txt"), "a");
    StepScope scope =
        scope(
            """
              provisioner "file" {
                source      = "conf"
                destination = "/etc/app"
              }
            """);
    ProvisionerStep step = FileArguments.resolve(scope, StepScopes.arguments(scope), SSH, 0, 0);
    assertThat(step.files()).containsOnlyKeys("conf/sub/a.txt");
    assertThat(step.destination()).isEqualTo("/etc/app");

    StepScope missing =
        scope(
            """
              provisioner "file" {
                content     = "x"
                destination = trimspace("  ")
              }
            """);
    assertThat(FileArguments.resolve(missing, StepScopes.arguments(missing), SSH, 0, 0)).isNull();
    Diagnostic d = missing.diagnostics().errors().get(0);
    assertThat(d.detail())
        .isEqualTo("The argument \"destination\" is required in the file provisioner.");
    assertThat(d.range().toString()).isEqualTo("main.tf:4:5");
  }
}
