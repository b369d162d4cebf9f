package dev.stagecraft.schemas.seal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class SecretsKeyringTest {
  private static final byte[] SECRET = "hunter2-deploy-password".getBytes(StandardCharsets.UTF_8);
  private static final byte[] AAD = SecretsKeyring.associatedData("ctx", "t1", "ws", "run/a");

  private final String k1 = SecretsKeyring.generateEntry("k1");
  private final String k0 = SecretsKeyring.generateEntry("k0");

  @Test
  void opensWhatItSealedAndTheBoxHoldsNoClearText() throws Exception {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);

    SealedBox box = keyring.seal(SECRET, AAD);

    assertThat(box.alg()).isEqualTo("A256GCM");
    assertThat(box.kid()).isEqualTo("k1");
    assertThat(Base64.getDecoder().decode(box.nonce())).hasSize(12);
    assertThat(box.toString()).doesNotContain("hunter2");
    assertThat(
            new String(Base64.getDecoder().decode(box.ciphertext()), StandardCharsets.ISO_8859_1))
        .doesNotContain("hunter2");
    assertThat(keyring.open(box, AAD)).isEqualTo(SECRET);
  }

  @Test
  void aKeyedDigestMatchesOnlyTheSameDataInTheSameContextAndSurvivesRotation() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);
    byte[] other = "hunter3-deploy-password".getBytes(StandardCharsets.UTF_8);
    byte[] otherContext = SecretsKeyring.associatedData("ctx", "t2", "ws", "run/a");

    String digest = keyring.keyedDigest(SECRET, AAD);

    assertThat(digest).startsWith("hmac-sha256:k1:").doesNotContain("hunter2");
    assertThat(keyring.keyedDigest(SECRET, AAD)).isEqualTo(digest);
    assertThat(keyring.matchesKeyedDigest(digest, SECRET, AAD)).isTrue();
    assertThat(keyring.matchesKeyedDigest(digest, other, AAD)).isFalse();
    assertThat(keyring.matchesKeyedDigest(digest, SECRET, otherContext)).isFalse();
    // not a plain hash: without the key the digest cannot be recomputed from a guess
    assertThat(digest).doesNotContain(SecretsKeyring.none().keyedDigest(SECRET, AAD).substring(7));
    // rotation: a new sealing key in front, the old one kept -> still matches
    assertThat(SecretsKeyring.parse(k0 + "," + k1).matchesKeyedDigest(digest, SECRET, AAD))
        .isTrue();
    // the old key dropped -> never matches
    assertThat(SecretsKeyring.parse(k0).matchesKeyedDigest(digest, SECRET, AAD)).isFalse();
    assertThat(keyring.matchesKeyedDigest("hmac-sha256:k1:zz", SECRET, AAD)).isFalse();
    assertThat(keyring.matchesKeyedDigest(null, SECRET, AAD)).isFalse();
  }

  @Test
  void withoutAKeyTheDigestIsAPlainSha256ThatSaysSo() {
    SecretsKeyring none = SecretsKeyring.none();

    String digest = none.keyedDigest(SECRET, AAD);

    assertThat(digest).startsWith("sha256:");
    assertThat(none.matchesKeyedDigest(digest, SECRET, AAD)).isTrue();
    assertThat(none.matchesKeyedDigest(digest, SECRET, new byte[0])).isFalse();
  }

  @Test
  void usesAFreshNonceForEverySeal() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);

    assertThat(keyring.seal(SECRET, AAD).nonce()).isNotEqualTo(keyring.seal(SECRET, AAD).nonce());
  }

  @Test
  void detectsATamperedCiphertext() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);
    SealedBox box = keyring.seal(SECRET, AAD);
    byte[] bytes = Base64.getDecoder().decode(box.ciphertext());
    bytes[3] ^= 0x01;
    SealedBox tampered =
        new SealedBox(box.alg(), box.kid(), box.nonce(), Base64.getEncoder().encodeToString(bytes));

    assertThatThrownBy(() -> keyring.open(tampered, AAD))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("tampered");
  }

  @Test
  void detectsATamperedNonce() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);
    SealedBox box = keyring.seal(SECRET, AAD);
    byte[] nonce = Base64.getDecoder().decode(box.nonce());
    nonce[0] ^= 0x01;
    SealedBox tampered =
        new SealedBox(
            box.alg(), box.kid(), Base64.getEncoder().encodeToString(nonce), box.ciphertext());

    assertThatThrownBy(() -> keyring.open(tampered, AAD)).isInstanceOf(UnsealException.class);
  }

  @Test
  void refusesToOpenWithOtherAssociatedData() {
    SecretsKeyring keyring = SecretsKeyring.parse(k1);
    SealedBox box = keyring.seal(SECRET, AAD);

    assertThatThrownBy(
            () -> keyring.open(box, SecretsKeyring.associatedData("ctx", "t2", "ws", "run/a")))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("another tenant, workspace or action");
    assertThatThrownBy(
            () -> keyring.open(box, SecretsKeyring.associatedData("ctx", "t1", "ws", "run/b")))
        .isInstanceOf(UnsealException.class);
  }

  @Test
  void associatedDataKeepsPartBoundaries() {
    assertThat(SecretsKeyring.associatedData("a/b", "c"))
        .isNotEqualTo(SecretsKeyring.associatedData("a", "b/c"));
  }

  @Test
  void afterRotationTheOldKeyStillOpensAndTheNewKeySeals() throws Exception {
    SealedBox old = SecretsKeyring.parse(k0).seal(SECRET, AAD);
    SecretsKeyring rotated = SecretsKeyring.parse(k1 + "," + k0);

    assertThat(rotated.open(old, AAD)).isEqualTo(SECRET);
    assertThat(rotated.seal(SECRET, AAD).kid()).isEqualTo("k1");
    assertThat(rotated.keyIds()).containsExactly("k1", "k0");
  }

  @Test
  void unknownKeyIdIsAClearErrorWithoutKeyMaterial() {
    SealedBox box = SecretsKeyring.parse(k0).seal(SECRET, AAD);
    SecretsKeyring withoutK0 = SecretsKeyring.parse(k1);

    assertThatThrownBy(() -> withoutK0.open(box, AAD))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("key id 'k0'")
        .hasMessageContaining("STAGECRAFT_SECRETS_KEYS")
        .hasMessageNotContaining(k1.substring(3))
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void emptyKeyringCannotSealAndOpensNothing() {
    SealedBox box = SecretsKeyring.parse(k1).seal(SECRET, AAD);

    assertThat(SecretsKeyring.parse(" ").canSeal()).isFalse();
    assertThatThrownBy(() -> SecretsKeyring.none().seal(SECRET, AAD))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> SecretsKeyring.none().open(box, AAD))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("none configured");
  }

  @Test
  void rejectsBadKeyringSpecsNamingTheEntryButNotTheKey() {
    String shortKey = Base64.getEncoder().encodeToString(new byte[16]);
    assertThatThrownBy(() -> SecretsKeyring.parse(k1 + ",k0:" + shortKey))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("entry 2")
        .hasMessageContaining("32 bytes")
        .hasMessageNotContaining(shortKey);
    assertThatThrownBy(() -> SecretsKeyring.parse("k1")).hasMessageContaining("kid:base64key");
    assertThatThrownBy(() -> SecretsKeyring.parse("k 1:" + k1.substring(3)))
        .hasMessageContaining("key id");
    assertThatThrownBy(() -> SecretsKeyring.parse("k1:not*base64"))
        .hasMessageContaining("not valid base64")
        .hasMessageNotContaining("not*base64");
    assertThatThrownBy(() -> SecretsKeyring.parse(k1 + "," + k1)).hasMessageContaining("twice");
  }

  @Test
  void toStringShowsKeyIdsOnly() {
    assertThat(SecretsKeyring.parse(k1).toString())
        .isEqualTo("SecretsKeyring[k1]")
        .doesNotContain(k1.substring(3));
  }
}
