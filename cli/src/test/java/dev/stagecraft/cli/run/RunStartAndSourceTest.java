package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code runs start} (the one-line run, followed to its end) and the source options of {@code
 * workspaces set|show} against a stand-in planner.
 */
class RunStartAndSourceTest {
  private static final String TOKEN = "ghp_secretTokenValue123";

  @TempDir Path tmp;
  private final StubApi api;

  RunStartAndSourceTest() throws Exception {
    api = new StubApi();
    api.server.createContext(
        "/api/v1/runs/run-1/logs",
        ex -> {
          ex.getResponseHeaders().add("Content-Type", "text/event-stream");
          ex.sendResponseHeaders(200, 0);
          try (var body = ex.getResponseBody()) {
            StubPlannerHttp.sendEvent(
                body,
                1,
                "status",
                "{\"sequence\":1,\"kind\":\"status\",\"status\":\"applied\","
                    + "\"message\":\"Apply complete! Resources: 1 added.\"}");
          }
        });
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void runsStartPostsOnlyTheWorkspaceAndItsOptionsAndFollowsTheRun() {
    api.answer("POST /api/v1/runs", 201, "{\"id\":\"run-1\",\"status\":\"queued\"}");

    int code =
        api.run(
            tmp,
            "",
            "runs",
            "start",
            "prod",
            "-var",
            "rev=abc",
            "-var=n=2",
            "-message=deploy abc",
            "-commit=0123abc");

    assertThat(code).isZero();
    assertThat(api.requests)
        .containsExactly(
            "POST /api/v1/runs {\"workspace\":\"prod\",\"variables\":{\"rev\":\"abc\",\"n\":\"2\"},"
                + "\"message\":\"deploy abc\",\"commit\":\"0123abc\"}");
    assertThat(api.out())
        .contains("Started run run-1 of workspace prod.")
        .contains("Apply complete! Resources: 1 added.");
  }

  @Test
  void runsShowSaysWhichCommitTheRunReadAndWhereEachVariableCameFrom() {
    api.answer(
        "GET /api/v1/runs/run-9",
        200,
        "{\"id\":\"run-9\",\"workspace\":\"prod\",\"status\":\"applied\","
            + "\"traceId\":\"4bf92f3577b34da6a3ce929d0e0e4736\","
            + "\"source\":{\"kind\":\"git\",\"repository\":\"https://git.example/app.git\","
            + "\"ref\":\"refs/heads/main\",\"commit\":\"9c5b1e3aa\"},"
            + "\"variableSources\":[{\"key\":\"rev\",\"category\":\"terraform\","
            + "\"source\":\"run\",\"sensitive\":false},{\"key\":\"TOKEN\",\"category\":\"env\","
            + "\"source\":\"variable set \\\"ci\\\"\",\"sensitive\":true}]}");

    assertThat(api.run(tmp, "", "runs", "show", "run-9")).isZero();

    assertThat(api.out())
        .contains(
            "source:      git https://git.example/app.git refs/heads/main at commit 9c5b1e3aa")
        .contains("  var.rev from run")
        .contains("  env TOKEN from variable set \"ci\" (sensitive)")
        .contains("trace:       4bf92f3577b34da6a3ce929d0e0e4736");
  }

  @Test
  void runsStartUsageErrors() {
    assertThat(api.run(tmp, "", "runs", "start")).isEqualTo(1);
    assertThat(api.run(tmp, "", "runs", "start", "prod", "-ref=main", "-commit=abc")).isEqualTo(1);
    assertThat(api.run(tmp, "", "runs", "start", "prod", "-var", "novalue")).isEqualTo(1);
    assertThat(api.run(tmp, "", "runs", "start", "prod", "-auto-approve")).isEqualTo(1);
    assertThat(api.requests).isEmpty();
    assertThat(api.err())
        .contains("runs start needs exactly one WORKSPACE")
        .contains("give -ref or -commit, not both")
        .contains("-var expects NAME=VALUE")
        .contains("runs start has no option -auto-approve");
  }

  @Test
  void workspacesSetSendsAGitSourceWithItsTokenFromAFileAndNeverPrintsIt() throws Exception {
    Files.writeString(tmp.resolve("token"), TOKEN + "\n", StandardCharsets.UTF_8);
    api.answer(
        "PUT /api/v1/workspaces/prod/source",
        200,
        "{\"kind\":\"git\",\"url\":\"https://git.example.com/org/infra.git\","
            + "\"ref\":\"refs/heads/main\",\"directory\":\"deploy\","
            + "\"credentials\":\"https-token\",\"triggerOnAnyPath\":false}");

    int code =
        api.run(
            tmp,
            "",
            "workspaces",
            "set",
            "prod",
            "-source=git",
            "-repo=https://git.example.com/org/infra.git",
            "-branch=main",
            "-dir=deploy",
            "-token=@token");

    assertThat(code).as(api.err()).isZero();
    assertThat(api.requests)
        .containsExactly(
            "PUT /api/v1/workspaces/prod/source {\"kind\":\"git\","
                + "\"url\":\"https://git.example.com/org/infra.git\",\"branch\":\"main\","
                + "\"directory\":\"deploy\",\"token\":\""
                + TOKEN
                + "\",\"triggerOnAnyPath\":false}");
    assertThat(api.out())
        .contains("source:      git https://git.example.com/org/infra.git at refs/heads/main")
        .contains("directory:   deploy")
        .contains("credentials: https-token")
        .doesNotContain(TOKEN);
  }

  @Test
  void settingsAndAnUploadSourceTogetherAndShowPrintsTheSource() {
    api.answer(
        "GET /api/v1/workspaces/prod/source",
        200,
        "{\"kind\":\"git\",\"url\":\"ssh://git@host/r.git\",\"ref\":\"v1\",\"directory\":\"\","
            + "\"credentials\":\"ssh-key\",\"triggerOnAnyPath\":true}");

    assertThat(api.run(tmp, "", "workspaces", "set", "dev", "-parallelism=2", "-source=upload"))
        .isZero();
    assertThat(api.run(tmp, "", "workspaces", "show", "prod")).isZero();

    assertThat(api.requests)
        .containsExactly(
            "PATCH /api/v1/workspaces/dev {\"parallelism\":2}",
            "PUT /api/v1/workspaces/dev/source {\"kind\":\"upload\"}",
            "GET /api/v1/workspaces/prod",
            "GET /api/v1/workspaces/prod/source");
    assertThat(api.out())
        .contains("source:      the configuration version last uploaded")
        .contains("source:      git ssh://git@host/r.git at v1")
        .contains("credentials: ssh-key")
        .contains("on push:     a run for every push");
  }

  @Test
  void sourceUsageErrorsSendNothing() {
    assertThat(api.run(tmp, "", "workspaces", "set", "p", "-source=git", "-branch=main"))
        .isEqualTo(1);
    assertThat(
            api.run(
                tmp, "", "workspaces", "set", "p", "-source=git", "-repo=u", "-branch=a", "-tag=b"))
        .isEqualTo(1);
    assertThat(api.run(tmp, "", "workspaces", "set", "p", "-source=upload", "-dir=x")).isEqualTo(1);
    assertThat(api.run(tmp, "", "workspaces", "set", "p", "-repo=u")).isEqualTo(1);
    assertThat(api.run(tmp, "", "workspaces", "set", "p", "-source=svn")).isEqualTo(1);
    assertThat(api.requests).isEmpty();
    assertThat(api.err())
        .contains("-source=git needs -repo=URL")
        .contains("-source=git needs one of -branch=B or -tag=T")
        .contains("-source=upload takes no other source option")
        .contains("the source options need -source")
        .contains("-source is git or upload, not svn");
  }
}
