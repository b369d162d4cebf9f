package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The fingerprint a saved plan keeps of a sensitive variable's value instead of the value. */
class SecretFingerprintTest {

  @Test
  void matchesTheValueItWasMadeOfAndNoOther() {
    String fingerprint = SecretFingerprint.of("hunter2 é");
    assertThat(SecretFingerprint.matches(fingerprint, "hunter2 é")).isTrue();
    assertThat(SecretFingerprint.matches(fingerprint, "hunter2 e")).isFalse();
    assertThat(SecretFingerprint.matches(fingerprint, "")).isFalse();
    assertThat(fingerprint).startsWith("pbkdf2-sha256$600000$").doesNotContain("hunter2");
  }

  @Test
  void twoFingerprintsOfOneValueDifferByTheirSalt() {
    String a = SecretFingerprint.of("same");
    String b = SecretFingerprint.of("same");
    assertThat(a).isNotEqualTo(b);
    assertThat(SecretFingerprint.matches(a, "same")).isTrue();
    assertThat(SecretFingerprint.matches(b, "same")).isTrue();
  }

  @Test
  void aDamagedFingerprintIsRefusedNotMatched() {
    for (String damaged :
        new String[] {
          "", "sha1$1$AA==$AA==", "pbkdf2-sha256$x$AA==$AA==", "pbkdf2-sha256$1$!!$AA==", "a$b"
        }) {
      assertThatThrownBy(() -> SecretFingerprint.matches(damaged, "v"))
          .as(damaged)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aFingerprintWithAFifthEmptyPartIsRefused() {
    String fingerprint = SecretFingerprint.of("v");

    assertThatThrownBy(() -> SecretFingerprint.matches(fingerprint + "$", "v"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SecretFingerprint.matches(fingerprint + "$$", "v"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
