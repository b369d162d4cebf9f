package dev.stagecraft.planner.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which repository URLs a workspace may follow, their matching form, and the rest of a source. */
class RepositoryUrlsTest {

  @Test
  void spellingsOfOneRepositoryHaveOneKey() {
    String key = "https://github.com/acme/infra";
    assertThat(RepositoryUrls.key("https://github.com/acme/infra")).isEqualTo(key);
    assertThat(RepositoryUrls.key("https://github.com/acme/infra.git")).isEqualTo(key);
    assertThat(RepositoryUrls.key("https://github.com/acme/infra/")).isEqualTo(key);
    assertThat(RepositoryUrls.key("HTTPS://GitHub.COM/acme/infra.git/")).isEqualTo(key);
    assertThat(RepositoryUrls.key("https://github.com:443/acme/infra")).isEqualTo(key);
    assertThat(RepositoryUrls.key("https://x-access-token@github.com/acme/infra")).isEqualTo(key);
    assertThat(RepositoryUrls.key("git@github.com:acme/infra.git"))
        .isEqualTo(RepositoryUrls.key("ssh://git@github.com/acme/infra"))
        .isEqualTo("ssh://github.com/acme/infra");
    // the path keeps its case: forges differ on whether it matters
    assertThat(RepositoryUrls.key("https://github.com/Acme/Infra")).isNotEqualTo(key);
    assertThat(RepositoryUrls.key("https://github.com/acme/infra2")).isNotEqualTo(key);
    assertThat(RepositoryUrls.key("https://github.com:8443/acme/infra")).isNotEqualTo(key);
  }

  @Test
  void onlyServersMayBeFetchedFrom() {
    assertThat(RepositoryUrls.problem("https://github.com/acme/infra.git")).isEmpty();
    assertThat(RepositoryUrls.problem("http://git.internal/infra")).isEmpty();
    assertThat(RepositoryUrls.problem("git://127.0.0.1:9418/infra")).isEmpty();
    assertThat(RepositoryUrls.problem("ssh://git@github.com/acme/infra")).isEmpty();
    assertThat(RepositoryUrls.problem("git@github.com:acme/infra.git")).isEmpty();

    assertThat(RepositoryUrls.problem("file:///srv/git/infra")).get().asString().contains("file:");
    assertThat(RepositoryUrls.problem("/srv/git/infra")).get().asString().contains("local path");
    assertThat(RepositoryUrls.problem("../infra")).get().asString().contains("local path");
    assertThat(RepositoryUrls.problem("ext::sh -c touch% /tmp/pwned")).isPresent();
    assertThat(RepositoryUrls.problem("https:///acme")).get().asString().contains("no host");
    assertThat(RepositoryUrls.problem("https://u:secret@github.com/acme/infra"))
        .get()
        .asString()
        .contains("password")
        .doesNotContain("secret");
    assertThat(RepositoryUrls.problem("")).isPresent();
  }

  @Test
  void passwordsInUrlsAreNotShown() {
    assertThat(RepositoryUrls.redacted("https://u:tok3n@github.com/acme/infra"))
        .isEqualTo("https://u:***@github.com/acme/infra");
    assertThat(RepositoryUrls.redacted("https://github.com/acme/infra"))
        .isEqualTo("https://github.com/acme/infra");
  }

  @Test
  void directoriesAndRefs() {
    assertThat(GitSourceRules.directoryProblem("deploy/prod")).isEmpty();
    assertThat(GitSourceRules.directoryProblem("deploy/prod/")).isEmpty();
    assertThat(GitSourceRules.directoryProblem("")).isEmpty();
    assertThat(GitSourceRules.directoryProblem("/etc"))
        .get()
        .asString()
        .contains("starts with '/'");
    assertThat(GitSourceRules.directoryProblem("deploy/../..")).get().asString().contains("'..'");
    assertThat(GitSourceRules.directoryProblem("./deploy")).isPresent();

    assertThat(GitSourceRules.under("deploy/main.tf", "deploy")).isTrue();
    assertThat(GitSourceRules.under("deploy/web/a.tf", "deploy/")).isTrue();
    assertThat(GitSourceRules.under("deployment/a.tf", "deploy")).isFalse();
    assertThat(GitSourceRules.under("README.md", "")).isTrue();

    assertThat(GitSourceRules.fullRef("main")).isEqualTo("refs/heads/main");
    assertThat(GitSourceRules.fullRef("refs/heads/main")).isEqualTo("refs/heads/main");
    assertThat(GitSourceRules.fullRef("refs/tags/v1")).isEqualTo("refs/tags/v1");
    assertThat(GitSourceRules.nameProblem("branch", "feature/x")).isEmpty();
    assertThat(GitSourceRules.nameProblem("branch", "a..b")).isPresent();
    assertThat(GitSourceRules.nameProblem("branch", "-x")).isPresent();
    assertThat(GitSourceRules.nameProblem("tag", "v1 2")).isPresent();
  }
}
