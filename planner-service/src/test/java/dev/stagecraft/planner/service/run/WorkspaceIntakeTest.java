package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.planner.service.run.intake.IdempotencyKey;
import dev.stagecraft.planner.service.run.intake.IntakeOutcome;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.run.intake.Submission;
import dev.stagecraft.planner.service.run.intake.WorkspaceConfigurations;
import dev.stagecraft.planner.service.source.FetchedConfiguration;
import dev.stagecraft.planner.service.source.GitFetcher;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import dev.stagecraft.planner.service.source.WorkspaceSources;
import dev.stagecraft.planner.service.workspace.ResolvedVariable;
import dev.stagecraft.planner.service.workspace.ResolvedVariables;
import dev.stagecraft.planner.service.workspace.VariableCategory;
import dev.stagecraft.planner.service.workspace.VariableOrigin;
import dev.stagecraft.planner.service.workspace.VariableUse;
import dev.stagecraft.planner.service.workspace.WorkspaceVariables;
import dev.stagecraft.schemas.EventCodec;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs that take their configuration and variables from their workspace (docs/workspaces.md):
 * {@link RunIntake} with {@link WorkspaceConfigurations} (the last upload, a git source pinned to a
 * commit, a source that cannot be reached) and {@link WorkspaceVariables} (which stored variables a
 * run uses, which are sensitive, the environment, where each came from), against the in-memory
 * ports of {@link RunCoordinatorTest}.
 */
class WorkspaceIntakeTest {
  static final Instant NOW = Instant.parse("2026-12-06T10:00:00Z");
  static final String COMMIT = "c0ffee" + "0".repeat(34);
  static final String APP =
      """
      variable "rev" {}
      variable "ssh_key" {}
      variable "stagecraft_commit_sha" {
        default = "none"
      }
      resource "stateful_provisioning" "app" {
        state_key = "${var.rev}-${var.stagecraft_commit_sha}"
        provisioner "local-exec" {
          command = "true"
        }
      }
      """;

  final MovableClock clock = new MovableClock();
  final AtomicInteger ids = new AtomicInteger();
  final Path uploadRoot = CoordinatorHarness.newTempDirectory();
  final RunCoordinator coordinator =
      new RunCoordinator(
          new RunCoordinatorTest.FakeLocks(),
          new RunCoordinatorTest.FakeStates(),
          events -> {},
          new EventCodec("/test", Clock.fixed(NOW, ZoneOffset.UTC), () -> "e" + ids.get()),
          clock,
          () -> "id" + ids.incrementAndGet(),
          new UploadedFiles(uploadRoot));
  final List<Submission> described = new CopyOnWriteArrayList<>();
  final List<String> fetchedCommits = new CopyOnWriteArrayList<>();

  @AfterEach
  void cleanUp() {
    coordinator.close();
    UploadedFiles.delete(uploadRoot);
  }

  RunIntake intake(WorkspaceConfigurations configurations, WorkspaceVariables variables) {
    return new RunIntake(coordinator, clock)
        .withDescriptions((runId, s) -> described.add(s))
        .withWorkspaceInputs(configurations, variables);
  }

  static Submission oneLine(Map<String, String> variables, String ref, String commit) {
    return new Submission(
        "acme",
        "prod",
        null,
        null,
        variables,
        Set.of(),
        false,
        List.of(),
        null,
        null,
        null,
        null,
        "deploy-bot",
        null,
        null,
        new IdempotencyKey.None(),
        new Submission.FromWorkspace(ref, commit));
  }

  static WorkspaceConfigurations uploads(Map<String, String> files) {
    return new WorkspaceConfigurations(
        WorkspaceSources.NONE,
        null,
        (tenant, ws) -> Optional.of(new WorkspaceConfigurations.Upload("cv-7", files, Map.of())));
  }

  WorkspaceConfigurations git(GitFetcher fetcher) {
    WorkspaceSources sources =
        new WorkspaceSources() {
          @Override
          public Optional<GitSource> gitSourceOf(String tenant, String workspace) {
            return Optional.of(
                new GitSource("git://example/app.git", "main", "deploy", null, false));
          }

          @Override
          public List<String> following(String tenant, List<String> urls, String branch) {
            return List.of("prod");
          }
        };
    return new WorkspaceConfigurations(
        sources, fetcher, WorkspaceConfigurations.LatestUploads.NONE);
  }

  static WorkspaceVariables stored(ResolvedVariable... more) {
    return (tenant, ws, runValues, runHcl) -> {
      List<ResolvedVariable> all = new ArrayList<>();
      runValues.forEach(
          (k, v) ->
              all.add(
                  new ResolvedVariable(
                      k, VariableCategory.TERRAFORM, v, false, false, new VariableOrigin.Run())));
      all.addAll(List.of(more));
      return new ResolvedVariables(all, Map.of("workspace", 4L));
    };
  }

  static Run started(IntakeOutcome outcome) {
    assertThat(outcome).as("%s", outcome).isInstanceOf(IntakeOutcome.Started.class);
    return ((IntakeOutcome.Started) outcome).run();
  }

  @Test
  void aRunNamingOnlyItsWorkspaceRunsTheVersionLastUploadedToIt() {
    RunIntake intake = intake(uploads(Map.of("main.tf", APP)), WorkspaceVariables.NONE);

    Run run = started(intake.accept(oneLine(Map.of("rev", "abc", "ssh_key", "k"), null, null)));

    assertThat(run.request().files()).containsEntry("main.tf", APP);
    assertThat(described).hasSize(1);
    assertThat(described.get(0).description().source().kind()).isEqualTo("upload");
    assertThat(described.get(0).description().configurationVersion()).isEqualTo("cv-7");
    // not from git: the commit variable keeps its default
    assertThat(run.request().variables()).doesNotContainKey("stagecraft_commit_sha");
  }

  @Test
  void aWorkspaceWithNothingToRunRefusesAndSaysWhatToDo() {
    RunIntake intake = intake(WorkspaceConfigurations.NONE, WorkspaceVariables.NONE);

    IntakeOutcome outcome = intake.accept(oneLine(Map.of(), null, null));

    assertThat(outcome).isInstanceOf(IntakeOutcome.Refused.class);
    IntakeOutcome.Refusal why = ((IntakeOutcome.Refused) outcome).reason();
    assertThat(why).isInstanceOf(IntakeOutcome.NoConfiguration.class);
    assertThat(((IntakeOutcome.NoConfiguration) why).reason())
        .contains("'prod' has no configuration")
        .contains("configuration-versions?workspace=prod")
        .contains("/source");
    assertThat(coordinator.runsOf("acme")).isEmpty();

    IntakeOutcome withCommit = intake.accept(oneLine(Map.of(), null, COMMIT));
    assertThat(((IntakeOutcome.Refused) withCommit).reason())
        .isInstanceOf(IntakeOutcome.NoConfiguration.class);
    assertThat(
            ((IntakeOutcome.NoConfiguration) ((IntakeOutcome.Refused) withCommit).reason())
                .reason())
        .contains("does not follow a git repository");
  }

  @Test
  void aGitRunPinsTheCommitItReadAndGivesItToTheConfiguration() {
    RunIntake intake =
        intake(
            git(
                (tenant, source, commit) -> {
                  fetchedCommits.add(String.valueOf(commit));
                  return new FetchedConfiguration(
                      Map.of("main.tf", APP), Map.of(), COMMIT, source.ref());
                }),
            WorkspaceVariables.NONE);

    Run run =
        started(
            intake.accept(
                oneLine(
                    Map.of("rev", "abc", "ssh_key", "k", "stagecraft_commit_sha", "forged"),
                    null,
                    "c0ffee0")));

    assertThat(fetchedCommits).containsExactly("c0ffee0");
    assertThat(run.request().variables()).containsEntry("stagecraft_commit_sha", COMMIT);
    assertThat(described.get(0).description().source().commit()).isEqualTo(COMMIT);
    assertThat(described.get(0).description().source().repository())
        .isEqualTo("git://example/app.git");
    assertThat(run.request().inputs().uses())
        .contains(new VariableUse("stagecraft_commit_sha", "terraform", "stagecraft", false));
  }

  @Test
  void aSourceThatCannotBeReachedFailsTheRunAtPlanningWithWhy() {
    RunIntake intake =
        intake(
            git(
                (tenant, source, commit) -> {
                  throw new SourceUnavailable(
                      "repository git://example/app.git cannot be reached: connection refused");
                }),
            WorkspaceVariables.NONE);

    Run run = started(intake.accept(oneLine(Map.of("rev", "abc"), null, null)));

    await().atMost(Duration.ofSeconds(10)).until(() -> run.summary().terminal());
    assertThat(run.summary().status()).isEqualTo("errored");
    assertThat(run.summary().message())
        .contains("Configuration source unavailable")
        .contains("cannot be reached: connection refused");
    assertThat(run.summary().planDigest()).as("nothing was planned, so nothing applied").isNull();
  }

  @Test
  void storedVariablesAreUsedWhenDeclaredSensitiveOnesMarkedAndTheEnvironmentPassed() {
    RunIntake intake =
        intake(
            uploads(Map.of("main.tf", APP)),
            stored(
                new ResolvedVariable(
                    "ssh_key",
                    VariableCategory.TERRAFORM,
                    "-----BEGIN KEY-----",
                    false,
                    true,
                    new VariableOrigin.Workspace(4)),
                new ResolvedVariable(
                    "undeclared",
                    VariableCategory.TERRAFORM,
                    "x",
                    false,
                    false,
                    new VariableOrigin.VariableSet("shared", true, 1)),
                new ResolvedVariable(
                    "DEPLOY_TOKEN",
                    VariableCategory.ENV,
                    "t0ken",
                    false,
                    true,
                    new VariableOrigin.VariableSet("tokens", false, 2))));

    Run run = started(intake.accept(oneLine(Map.of("rev", "abc"), null, null)));

    RunRequest request = run.request();
    assertThat(request.variables())
        .containsEntry("rev", "abc")
        .containsEntry("ssh_key", "-----BEGIN KEY-----")
        .doesNotContainKey("undeclared");
    assertThat(request.inputs().sensitiveVariables()).containsExactly("ssh_key");
    assertThat(request.inputs().environment()).containsExactly(Map.entry("DEPLOY_TOKEN", "t0ken"));
    assertThat(request.inputs().sensitiveEnvironment()).containsExactly("DEPLOY_TOKEN");
    assertThat(request.inputs().describeUses())
        .contains("var.rev from run")
        .contains("var.ssh_key from workspace (sensitive)")
        .contains("env DEPLOY_TOKEN from variable set \"tokens\" (sensitive)")
        .doesNotContain("undeclared")
        .doesNotContain("t0ken")
        .doesNotContain("BEGIN KEY");
    assertThat(described.get(0).description().variableVersions()).containsEntry("workspace", 4L);
    assertThat(request.inputs().toString()).doesNotContain("t0ken");
  }
}
