package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.adapter.http.WorkspaceSourceController.SourceBody;
import org.junit.jupiter.api.Test;

/** What {@code PUT /api/v1/workspaces/{ws}/source} refuses with a 400, and why. */
class WorkspaceSourceBodyTest {
  static SourceBody git(String url, String branch, String tag, String dir) {
    return new SourceBody("git", url, branch, tag, dir, null, null, null, null);
  }

  @Test
  void aValidSourcePasses() {
    assertThat(WorkspaceSourceController.check(git("https://github.com/a/b.git", "main", null, "")))
        .isEmpty();
    assertThat(
            WorkspaceSourceController.check(
                git("https://github.com/a/b", null, "refs/tags/v1.2", "deploy/prod/")))
        .isEmpty();
  }

  @Test
  void eachMistakeIsNamed() {
    assertThat(WorkspaceSourceController.check(git("file:///etc", "main", null, "")))
        .get()
        .asString()
        .contains("file:");
    assertThat(WorkspaceSourceController.check(git("https://github.com/a/b", "main", "v1", "")))
        .get()
        .asString()
        .contains("exactly one of");
    assertThat(WorkspaceSourceController.check(git("https://github.com/a/b", null, null, "")))
        .get()
        .asString()
        .contains("exactly one of");
    assertThat(WorkspaceSourceController.check(git("https://github.com/a/b", "a..b", null, "")))
        .get()
        .asString()
        .contains("not a valid git branch name");
    assertThat(WorkspaceSourceController.check(git("https://github.com/a/b", "main", null, "../x")))
        .get()
        .asString()
        .contains("'..'");
    assertThat(WorkspaceSourceController.check(git("https://github.com/a/b", "main", null, "/x")))
        .get()
        .asString()
        .contains("starts with '/'");
    assertThat(
            WorkspaceSourceController.check(
                new SourceBody(
                    "git", "https://github.com/a/b", "main", null, "", null, null, "KEY", null)))
        .get()
        .asString()
        .contains("goes with an ssh URL")
        .doesNotContain("KEY");
    assertThat(WorkspaceSourceController.check(git("git@github.com:a/b.git", "main", null, "")))
        .get()
        .asString()
        .contains("needs an \"sshKey\"");
    assertThat(
            WorkspaceSourceController.check(
                new SourceBody(
                    "git", "git@github.com:a/b.git", "main", null, "", null, null, "KEY", null)))
        .isEmpty();
  }

  @Test
  void theBodyNeverPrintsItsToken() {
    SourceBody body =
        new SourceBody(
            "git", "https://github.com/a/b", "main", null, "", "bot", "Tok3n", null, null);
    assertThat(body.toString()).doesNotContain("Tok3n");
  }
}
