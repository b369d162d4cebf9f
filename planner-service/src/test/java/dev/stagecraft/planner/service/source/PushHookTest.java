package dev.stagecraft.planner.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The push webhook's rules: each forge's signature verified (good, bad, missing), ignored events,
 * the workspaces that follow the pushed repository and branch, path filtering and delivery ids.
 */
class PushHookTest {
  static final String SECRET = "current-secret";
  static final String PREVIOUS = "previous-secret";

  /** The workspaces' sources by "tenant/workspace". */
  final Map<String, GitSource> sources = new HashMap<>();

  final List<String> started = new ArrayList<>();

  final WorkspaceSources store =
      new WorkspaceSources() {
        @Override
        public Optional<GitSource> gitSourceOf(String tenant, String workspace) {
          return Optional.ofNullable(sources.get(tenant + "/" + workspace));
        }

        @Override
        public List<String> following(String tenant, List<String> urls, String branch) {
          List<String> keys = urls.stream().map(RepositoryUrls::key).toList();
          List<String> out = new ArrayList<>();
          sources.forEach(
              (k, s) -> {
                if (k.startsWith(tenant + "/")
                    && keys.contains(RepositoryUrls.key(s.url()))
                    && s.ref().equals(GitSourceRules.branchRef(branch))) {
                  out.add(k.substring(tenant.length() + 1));
                }
              });
          out.sort(null);
          return out;
        }
      };

  final TriggerSecrets secrets =
      new TriggerSecrets() {
        @Override
        public List<String> verifying(String tenant) {
          return tenant.equals("acme") ? List.of(SECRET, PREVIOUS) : List.of();
        }

        @Override
        public Issued rotate(String tenant) {
          throw new UnsupportedOperationException();
        }
      };

  final PushRuns runs =
      (tenant, workspace, commit, deliveryId, message) -> {
        String entry = tenant + "/" + workspace + "@" + commit + " " + deliveryId + " " + message;
        boolean replayed = started.contains(entry);
        started.add(entry);
        return workspace.equals("locked")
            ? new PushRuns.Refused("the workspace is locked")
            : new PushRuns.Started("run-" + workspace, replayed);
      };

  final PushHook hook = new PushHook(secrets, store, runs);

  void follow(String workspace, String url, String branch, String directory, boolean anyPath) {
    sources.put(
        "acme/" + workspace,
        new GitSource(
            url, GitSourceRules.branchRef(branch), directory, new GitCredentials.None(), anyPath));
  }

  static Map<String, String> github(byte[] body, String secret) {
    Map<String, String> h = new HashMap<>();
    h.put("X-GitHub-Event", "push");
    h.put("X-GitHub-Delivery", "d-1");
    if (secret != null) {
      h.put("X-Hub-Signature-256", "sha256=" + PushSignatures.hmacHex(secret, body));
    }
    return h;
  }

  PushHook.Answer send(String tenant, Map<String, String> headers, byte[] body) {
    return hook.handle(tenant, PushHook.headers(headers), body);
  }

  @Test
  void aSignedGithubPushStartsARunPerFollowingWorkspaceWhoseDirectoryItTouches() throws Exception {
    byte[] body = PushEventsTest.sample("github-push.json");
    follow("web", "https://GitHub.com/acme/infra/", "main", "deploy", false);
    follow("other-dir", "git@github.com:acme/infra.git", "main", "envs/prod", false);
    follow("any-path", "https://github.com/acme/infra", "main", "envs/prod", true);
    follow("other-branch", "https://github.com/acme/infra.git", "release", "deploy", false);
    follow("other-repo", "https://github.com/acme/app.git", "main", "deploy", false);
    follow("locked", "https://github.com/acme/infra.git", "main", "", false);

    PushHook.Answer answer = send("acme", github(body, SECRET), body);

    assertThat(answer).isInstanceOf(PushHook.Handled.class);
    PushHook.Handled h = (PushHook.Handled) answer;
    assertThat(h.delivery()).isEqualTo("d-1");
    assertThat(h.runs())
        .containsExactly(
            new PushHook.StartedRun("any-path", "run-any-path", false),
            new PushHook.StartedRun("web", "run-web", false));
    assertThat(h.skipped())
        .containsExactly(
            new PushHook.Skipped("locked", "the workspace is locked"),
            new PushHook.Skipped("other-dir", "the push changes nothing under envs/prod/"));
    assertThat(started)
        .contains(
            "acme/web@9c5b1e3f0a2d4b6c8e7f1a3b5c7d9e0f2a4b6c8d d-1 pushed by ada: Bump the web"
                + " tier to 3 nodes");
  }

  @Test
  void theSameDeliveryIsPassedOnSoTheIntakeCanReplayIt() throws Exception {
    byte[] body = PushEventsTest.sample("github-push.json");
    follow("web", "https://github.com/acme/infra.git", "main", "deploy", false);

    send("acme", github(body, SECRET), body);
    PushHook.Handled again = (PushHook.Handled) send("acme", github(body, PREVIOUS), body);

    assertThat(again.runs()).containsExactly(new PushHook.StartedRun("web", "run-web", true));
  }

  @Test
  void aBadOrMissingGithubSignatureStartsNothing() throws Exception {
    byte[] body = PushEventsTest.sample("github-push.json");
    follow("web", "https://github.com/acme/infra.git", "main", "deploy", false);

    assertThat(send("acme", github(body, "wrong"), body)).isInstanceOf(PushHook.Unauthorized.class);
    assertThat(send("acme", github(body, null), body)).isInstanceOf(PushHook.Unauthorized.class);
    // signed for acme, sent to a tenant without that secret
    assertThat(send("other", github(body, SECRET), body)).isInstanceOf(PushHook.Unauthorized.class);
    // the body changed after signing
    byte[] changed =
        new String(body, StandardCharsets.UTF_8)
            .replace("ada", "eve")
            .getBytes(StandardCharsets.UTF_8);
    assertThat(send("acme", github(body, SECRET), changed))
        .isInstanceOf(PushHook.Unauthorized.class);
    assertThat(started).isEmpty();
  }

  @Test
  void giteaSignaturesAreTheBareHmac() throws Exception {
    byte[] body = PushEventsTest.sample("gitea-push.json");
    follow("bastion", "https://gitea.example.com/ops/infra", "main", "bastion", false);
    Map<String, String> h = new HashMap<>();
    h.put("X-Gitea-Event", "push");
    h.put("X-GitHub-Event", "push"); // Gitea sends both
    h.put("X-Gitea-Delivery", "g-1");

    assertThat(send("acme", h, body)).isInstanceOf(PushHook.Unauthorized.class);
    h.put("X-Gitea-Signature", PushSignatures.hmacHex("wrong", body));
    assertThat(send("acme", h, body)).isInstanceOf(PushHook.Unauthorized.class);
    h.put("X-Gitea-Signature", "sha256=" + PushSignatures.hmacHex(SECRET, body));
    assertThat(send("acme", h, body)).isInstanceOf(PushHook.Unauthorized.class);
    assertThat(started).isEmpty();

    h.put("X-Gitea-Signature", PushSignatures.hmacHex(SECRET, body));
    PushHook.Handled handled = (PushHook.Handled) send("acme", h, body);
    assertThat(handled.delivery()).isEqualTo("g-1");
    assertThat(handled.runs())
        .extracting(PushHook.StartedRun::workspace)
        .containsExactly("bastion");
  }

  @Test
  void gitlabSendsTheSecretItself() throws Exception {
    byte[] body = PushEventsTest.sample("gitlab-push.json");
    follow("prod", "git@gitlab.example.com:ops/infra.git", "release", "envs/prod", false);
    Map<String, String> h = new HashMap<>();
    h.put("X-Gitlab-Event", "Push Hook");
    h.put("X-Gitlab-Event-UUID", "l-1");

    assertThat(send("acme", h, body)).isInstanceOf(PushHook.Unauthorized.class);
    h.put("X-Gitlab-Token", SECRET + "x");
    assertThat(send("acme", h, body)).isInstanceOf(PushHook.Unauthorized.class);
    assertThat(started).isEmpty();

    h.put("X-Gitlab-Token", SECRET);
    PushHook.Handled handled = (PushHook.Handled) send("acme", h, body);
    assertThat(handled.delivery()).isEqualTo("l-1");
    assertThat(handled.runs()).extracting(PushHook.StartedRun::workspace).containsExactly("prod");
    assertThat(started.get(0)).endsWith("pushed by grace: Open port 443 on the balancer");
  }

  @Test
  void pingsOtherEventsTagsAndDeletionsAreIgnored() throws Exception {
    follow("web", "https://github.com/acme/infra.git", "main", "", true);
    byte[] ping = "{\"zen\":\"Keep it logically awesome.\"}".getBytes(StandardCharsets.UTF_8);
    Map<String, String> h = github(ping, SECRET);
    h.put("X-GitHub-Event", "ping");
    assertThat(send("acme", h, ping)).isInstanceOf(PushHook.Ignored.class);

    String github = new String(PushEventsTest.sample("github-push.json"), StandardCharsets.UTF_8);
    byte[] tag = github.replace("refs/heads/main", "refs/tags/v2").getBytes(StandardCharsets.UTF_8);
    assertThat(send("acme", github(tag, SECRET), tag)).isInstanceOf(PushHook.Ignored.class);

    byte[] deletion =
        github
            .replace(
                "\"after\": \"9c5b1e3f0a2d4b6c8e7f1a3b5c7d9e0f2a4b6c8d\"",
                "\"after\": \"0000000000000000000000000000000000000000\"")
            .getBytes(StandardCharsets.UTF_8);
    assertThat(send("acme", github(deletion, SECRET), deletion))
        .isInstanceOf(PushHook.Ignored.class);
    assertThat(started).isEmpty();
  }

  @Test
  void unsignedLargeOrUnknownDeliveriesAreRefusedUnread() {
    byte[] large = new byte[PushHook.MAX_BODY_BYTES + 1];
    assertThat(send("acme", github(large, SECRET), large)).isInstanceOf(PushHook.TooLarge.class);
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    assertThat(send("acme", Map.of(), body)).isInstanceOf(PushHook.Unauthorized.class);
    byte[] notJson = "payload=%7B%7D".getBytes(StandardCharsets.UTF_8);
    assertThat(send("acme", github(notJson, SECRET), notJson)).isInstanceOf(PushHook.Invalid.class);
  }

  @Test
  void withoutADeliveryIdThePushItselfIsTheKey() throws Exception {
    byte[] body = PushEventsTest.sample("github-push.json");
    follow("web", "https://github.com/acme/infra.git", "main", "deploy", false);
    Map<String, String> h = github(body, SECRET);
    h.remove("X-GitHub-Delivery");

    PushHook.Handled handled = (PushHook.Handled) send("acme", h, body);

    assertThat(handled.delivery())
        .isEqualTo("github:refs/heads/main:9c5b1e3f0a2d4b6c8e7f1a3b5c7d9e0f2a4b6c8d");
  }
}
