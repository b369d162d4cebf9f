package dev.stagecraft.platform.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.util.List;
import org.junit.jupiter.api.Test;

class SecretsSettingTest {
  @Test
  void aRequiredButMissingKeyringStopsTheServiceWithWhatToSet() {
    assertThatThrownBy(() -> SecretsSetting.keyring("", true, "planner"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("STAGECRAFT_SECRETS_KEYS is empty")
        .hasMessageContaining("openssl rand -base64 32");
  }

  @Test
  void aMissingKeyringIsAllowedWhenNotRequiredAndHealthSaysSealingIsOff() {
    SecretsKeyring none = SecretsSetting.keyring(null, false, "planner");

    assertThat(none.canSeal()).isFalse();
    assertThat(SecretsSetting.healthDetail(none))
        .containsEntry("sealing", "off")
        .containsKey("warning");
  }

  @Test
  void aMalformedKeyringStopsTheServiceWithoutShowingTheKey() {
    assertThatThrownBy(() -> SecretsSetting.keyring("k1:c2hvcnQ=", false, "executor"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("32 bytes")
        .hasMessageNotContaining("c2hvcnQ=");
  }

  @Test
  void healthShowsKeyIdsButNoKeys() {
    String k2 = SecretsKeyring.generateEntry("k2");
    String k1 = SecretsKeyring.generateEntry("k1");

    SecretsKeyring keyring = SecretsSetting.keyring(k2 + "," + k1, true, "executor");

    assertThat(SecretsSetting.healthDetail(keyring))
        .containsEntry("sealing", "on")
        .containsEntry("sealingKeyId", "k2")
        .containsEntry("keyIds", List.of("k2", "k1"));
    assertThat(SecretsSetting.healthDetail(keyring).toString())
        .doesNotContain(k2.substring(3))
        .doesNotContain(k1.substring(3));
  }
}
