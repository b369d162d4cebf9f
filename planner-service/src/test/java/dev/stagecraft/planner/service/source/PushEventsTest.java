package dev.stagecraft.planner.service.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The forges' push payloads (samples in src/test/resources/push) read into {@link PushEvent}s. */
class PushEventsTest {
  static byte[] sample(String name) throws IOException {
    try (InputStream in = PushEventsTest.class.getResourceAsStream("/push/" + name)) {
      return in.readAllBytes();
    }
  }

  @Test
  void aGithubPush() throws Exception {
    PushEvent p = PushEvents.github(sample("github-push.json"));

    assertThat(p.branch()).isEqualTo("main");
    assertThat(p.after()).isEqualTo("9c5b1e3f0a2d4b6c8e7f1a3b5c7d9e0f2a4b6c8d");
    assertThat(p.deleted()).isFalse();
    assertThat(p.repositoryUrls())
        .contains(
            "https://github.com/acme/infra.git",
            "git://github.com/acme/infra.git",
            "git@github.com:acme/infra.git",
            "https://github.com/acme/infra");
    assertThat(p.changedPaths())
        .containsExactlyInAnyOrder(
            "README.md", "deploy/web/nodes.tf", "deploy/web/old.tf", "deploy/main.tf");
    assertThat(p.message()).isEqualTo("pushed by ada: Bump the web tier to 3 nodes");
    assertThat(p.touches("deploy")).isTrue();
    assertThat(p.touches("deploy/web/")).isTrue();
    assertThat(p.touches("envs/prod")).isFalse();
    assertThat(p.touches("")).isTrue();
  }

  @Test
  void aGitlabPush() throws Exception {
    PushEvent p = PushEvents.gitlab(sample("gitlab-push.json"));

    assertThat(p.branch()).isEqualTo("release");
    assertThat(p.after()).isEqualTo("da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
    assertThat(p.repositoryUrls())
        .contains(
            "https://gitlab.example.com/ops/infra.git", "git@gitlab.example.com:ops/infra.git");
    assertThat(p.changedPaths()).containsExactlyInAnyOrder("docs/release.md", "envs/prod/lb.tf");
    assertThat(p.message()).isEqualTo("pushed by grace: Open port 443 on the balancer");
    assertThat(p.touches("envs/prod")).isTrue();
    assertThat(p.touches("envs/staging")).isFalse();
  }

  @Test
  void aGitlabPushWithMoreCommitsThanListedTouchesEverything() throws Exception {
    String body =
        new String(sample("gitlab-push.json"), StandardCharsets.UTF_8)
            .replace("\"total_commits_count\": 2", "\"total_commits_count\": 40");
    PushEvent p = PushEvents.gitlab(body.getBytes(StandardCharsets.UTF_8));

    assertThat(p.changedPaths()).isNull();
    assertThat(p.touches("envs/staging")).isTrue();
  }

  @Test
  void aGiteaPush() throws Exception {
    PushEvent p = PushEvents.gitea(sample("gitea-push.json"));

    assertThat(p.branch()).isEqualTo("main");
    assertThat(p.repositoryUrls()).contains("https://gitea.example.com/ops/infra.git");
    assertThat(p.changedPaths()).containsExactly("bastion/main.tf");
    assertThat(p.message()).isEqualTo("pushed by linus: Rotate the bastion's host key");
  }

  @Test
  void tagsDeletionsAndPayloadsWithoutPathsAreTold() throws Exception {
    String github = new String(sample("github-push.json"), StandardCharsets.UTF_8);
    PushEvent tag =
        PushEvents.github(
            github
                .replace("\"refs/heads/main\"", "\"refs/tags/v2\"")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(tag.branch()).isNull();

    PushEvent deletion =
        PushEvents.github(
            github
                .replace(
                    "9c5b1e3f0a2d4b6c8e7f1a3b5c7d9e0f2a4b6c8d\",\n  \"created\"",
                    "0000000000000000000000000000000000000000\",\n  \"created\"")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(deletion.deleted()).isTrue();

    PushEvent noPaths =
        PushEvents.github(
            ("{\"ref\":\"refs/heads/main\",\"after\":\""
                    + "a".repeat(40)
                    + "\","
                    + "\"repository\":{\"clone_url\":\"https://github.com/acme/infra.git\"},"
                    + "\"commits\":[{\"id\":\""
                    + "a".repeat(40)
                    + "\",\"message\":\"x\"}]}")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(noPaths.changedPaths()).isNull();
    assertThat(noPaths.touches("anything")).isTrue();
  }

  @Test
  void aPayloadThatIsNotAPushIsRefused() {
    assertThatThrownBy(() -> PushEvents.github("payload=%7B%7D".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PushEvents.NotAPush.class)
        .hasMessageContaining("application/json");
    assertThatThrownBy(
            () ->
                PushEvents.gitlab("{\"ref\":\"refs/heads/main\"}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PushEvents.NotAPush.class)
        .hasMessageContaining("names no project URL");
  }
}
