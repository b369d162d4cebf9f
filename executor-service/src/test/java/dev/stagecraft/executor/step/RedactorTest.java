package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedactorTest {

  @Test
  void replacesEveryOccurrenceOfEachValue() {
    Redactor redactor = new Redactor(List.of("pw1", "tok"));

    assertThat(redactor.redact("pw1 and tok and pw1"))
        .isEqualTo("(sensitive value) and (sensitive value) and (sensitive value)");
  }

  @Test
  void hidesALongerValueWholeWhenItContainsAShorterOne() {
    Redactor redactor = new Redactor(List.of("abc", "abcdef"));

    assertThat(redactor.redact("x abcdef y")).isEqualTo("x (sensitive value) y");
  }

  @Test
  void neverRedactsThePlaceholderAgain() {
    Redactor redactor = new Redactor(List.of("secret", "sensitive"));

    assertThat(redactor.redact("a secret")).isEqualTo("a (sensitive value)");
  }

  @Test
  void ignoresEmptyAndNullValuesAndTreatsValuesLiterally() {
    Redactor redactor = new Redactor(Arrays.asList("", null, "a.c"));

    assertThat(redactor.redact("abc a.c")).isEqualTo("abc (sensitive value)");
    assertThat(redactor.redact(null)).isNull();
  }

  @Test
  void hidesEachLongLineOfAMultiLineValueSoAPrintedKeyNeverShowsLineByLine() {
    String key = "-----BEGIN KEY-----\nAAAAB3NzaC1yc2EAAAADAQAB\nQUJD\n-----END KEY-----\n";
    Redactor redactor = new Redactor(List.of(key));

    assertThat(redactor.redact("AAAAB3NzaC1yc2EAAAADAQAB")).isEqualTo("(sensitive value)");
    assertThat(redactor.redact("x " + key + " y")).isEqualTo("x (sensitive value) y");
    // Short lines are too common to hide.
    assertThat(redactor.redact("QUJD")).isEqualTo("QUJD");
  }
}
