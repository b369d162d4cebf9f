package dev.stagecraft.servicekit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NamesAndJsonTest {

  @Test
  void acceptsNamesOfUpTo128SafeCharacters() {
    assertThat(Names.check("workspace", "prod-eu_1.a")).isEqualTo("prod-eu_1.a");
    assertThat(Names.check("tenant", "a".repeat(128))).hasSize(128);
  }

  @Test
  void rejectsUnsafeNamesWith400NamingWhatWasWrong() {
    assertThatThrownBy(() -> Names.check("workspace", "../etc"))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(400);
              assertThat(p.detail()).startsWith("workspace name '../etc' is invalid");
            });
    assertThatThrownBy(() -> Names.check("tenant", "a".repeat(129))).isInstanceOf(Problem.class);
    assertThatThrownBy(() -> Names.check("tenant", null)).isInstanceOf(Problem.class);
  }

  @Test
  void requestBodiesMustBeJsonObjectsWithTheRequiredText() {
    assertThat(Json.requiredText(Json.object("{\"holder\":\"run-1\"}"), "holder"))
        .isEqualTo("run-1");
    assertThatThrownBy(() -> Json.object("[1]")).isInstanceOf(Problem.class);
    assertThatThrownBy(() -> Json.object("{")).hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> Json.object(" ")).isInstanceOf(Problem.class);
    assertThatThrownBy(() -> Json.requiredText(Json.object("{\"holder\":\" \"}"), "holder"))
        .hasMessage("field 'holder' is required and must be a non-empty string");
  }

  @Test
  void keepsEmptyCollectionsInResponses() {
    assertThat(Json.write(java.util.Map.of("outputs", java.util.Map.of())))
        .isEqualTo("{\"outputs\":{}}");
  }
}
