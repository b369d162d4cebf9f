package dev.stagecraft.planner.service.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Login CSRF: a sign-in sent by another site's page is told apart from the console's own form. */
class ConsoleSignInOriginTest {

  @Test
  void aBrowsersOwnWordDecides() {
    assertThat(ConsoleAuth.crossSite("same-origin", null, "planner:8080")).isFalse();
    assertThat(ConsoleAuth.crossSite("none", null, "planner:8080")).isFalse(); // typed, bookmarked
    assertThat(ConsoleAuth.crossSite("cross-site", null, "planner:8080")).isTrue();
    assertThat(ConsoleAuth.crossSite("same-site", null, "planner:8080")).isTrue();
    // the header wins over an Origin that a proxy's Host would not match
    assertThat(ConsoleAuth.crossSite("same-origin", "https://deploy.example", "10.0.0.5:8080"))
        .isFalse();
  }

  @Test
  void withoutItTheOriginMustBeTheHostAsked() {
    assertThat(ConsoleAuth.crossSite(null, "http://planner:8080", "planner:8080")).isFalse();
    assertThat(ConsoleAuth.crossSite(null, "http://PLANNER:8080", "planner:8080")).isFalse();
    assertThat(ConsoleAuth.crossSite(null, "https://evil.example", "planner:8080")).isTrue();
    assertThat(ConsoleAuth.crossSite(null, "http://planner:9999", "planner:8080")).isTrue();
    assertThat(ConsoleAuth.crossSite(null, "null", "planner:8080")).isTrue();
    assertThat(ConsoleAuth.crossSite(null, "not a url", "planner:8080")).isTrue();
    // no browser headers at all: a script or curl, not another site's form
    assertThat(ConsoleAuth.crossSite(null, null, "planner:8080")).isFalse();
  }
}
