package dev.stagecraft.schemas.seal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SealedValuesTest {
  private static final String SECRET = "hunter2-attribute-secret";
  private static final byte[] CTX =
      SealedValues.context("t1", "ws", "null_resource.a", List.of("triggers", "pw"));

  private final String k1 = SecretsKeyring.generateEntry("k1");
  private final String k0 = SecretsKeyring.generateEntry("k0");

  @Test
  void roundTripsEveryJsonTypeAndHoldsNoClearText() throws Exception {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);
    for (Object value :
        List.<Object>of(SECRET, 42, 1.5, true, List.of(SECRET, 1), Map.of("b", SECRET, "a", 2))) {
      String sealed = SealedValues.seal(keyring, value, CTX);

      assertThat(sealed).startsWith("stagecraft:sealed:v1:k1:").doesNotContain("hunter2");
      assertThat(SealedValues.isSealed(sealed)).isTrue();
      assertThat(SealedValues.kidOf(sealed)).isEqualTo("k1");
      byte[] payload = Base64.getUrlDecoder().decode(sealed.substring(24));
      assertThat(new String(payload, StandardCharsets.ISO_8859_1)).doesNotContain("hunter2");
      assertThat(SealedValues.open(keyring, sealed, CTX)).isEqualTo(value);
    }
  }

  @Test
  void isDeterministicForEqualValuesInTheSameContext() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);

    assertThat(SealedValues.seal(keyring, SECRET, CTX))
        .isEqualTo(SealedValues.seal(keyring, SECRET, CTX));
    // map order and number form do not matter: the plaintext is canonical JSON
    assertThat(SealedValues.seal(keyring, Map.of("a", 1, "b", "x"), CTX))
        .isEqualTo(
            SealedValues.seal(
                keyring,
                new java.util.LinkedHashMap<>(
                    Map.of("b", "x", "a", new java.math.BigDecimal("1.0"))),
                CTX));
    assertThat(SealedValues.seal(keyring, SECRET, CTX))
        .isNotEqualTo(SealedValues.seal(keyring, SECRET + "!", CTX));
  }

  @Test
  void aDifferentContextGivesADifferentValueThatDoesNotOpenElsewhere() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);
    byte[] otherPath = SealedValues.context("t1", "ws", "null_resource.a", List.of("state_key"));
    byte[] otherTenant =
        SealedValues.context("t2", "ws", "null_resource.a", List.of("triggers", "pw"));
    byte[] otherWorkspace =
        SealedValues.context("t1", "ws2", "null_resource.a", List.of("triggers", "pw"));
    String sealed = SealedValues.seal(keyring, SECRET, CTX);

    for (byte[] other : List.of(otherPath, otherTenant, otherWorkspace)) {
      assertThat(SealedValues.seal(keyring, SECRET, other)).isNotEqualTo(sealed);
      assertThatThrownBy(() -> SealedValues.open(keyring, sealed, other))
          .isInstanceOf(UnsealException.class)
          .hasMessageContaining("does not authenticate");
    }
  }

  @Test
  void aValueSealedWithAnOldKeyOpensAfterRotationAndResealsWithTheNewKey() throws Exception {
    String old = SealedValues.seal(SecretsKeyring.parse(k0), SECRET, CTX);
    SecretsKeyring rotated = SecretsKeyring.parse(k1 + "," + k0);

    assertThat(SealedValues.open(rotated, old, CTX)).isEqualTo(SECRET);
    String resealed = SealedValues.seal(rotated, SECRET, CTX);
    assertThat(SealedValues.kidOf(resealed)).isEqualTo("k1");
    assertThat(SealedValues.open(rotated, resealed, CTX)).isEqualTo(SECRET);
  }

  @Test
  void aMissingKeyIsNamedAndATamperedValueIsRefused() {
    String sealed = SealedValues.seal(SecretsKeyring.parse(k0), SECRET, CTX);

    assertThatThrownBy(() -> SealedValues.open(SecretsKeyring.parse(k1), sealed, CTX))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("'k0'")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> SealedValues.open(SecretsKeyring.none(), sealed, CTX))
        .hasMessageContaining("'k0'")
        .hasMessageContaining("none configured");
    char last = sealed.charAt(sealed.length() - 1);
    String tampered = sealed.substring(0, sealed.length() - 1) + (last == 'A' ? 'B' : 'A');
    assertThatThrownBy(() -> SealedValues.open(SecretsKeyring.parse(k0), tampered, CTX))
        .isInstanceOf(UnsealException.class);
    assertThatThrownBy(
            () -> SealedValues.open(SecretsKeyring.parse(k0), "stagecraft:sealed:v1:k0:%%", CTX))
        .hasMessageContaining("malformed");
  }
}
