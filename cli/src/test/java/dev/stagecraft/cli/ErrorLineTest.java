package dev.stagecraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorLineTest {
  @Test
  void prefixesAMessageOnceAndLeavesRenderedDiagnosticsAsTheyAre() {
    assertThat(ErrorLine.of("the workspace is locked")).isEqualTo("Error: the workspace is locked");
    String rendered = "Error: Invalid function argument\n\n  on main.tf line 2:\n";
    assertThat(ErrorLine.of(rendered)).isEqualTo(rendered);
    assertThat(ErrorLine.of("\nError: x")).isEqualTo("Error: x");
    assertThat(ErrorLine.of("Warning: y\n\nError: z")).startsWith("Warning: y");
  }
}
