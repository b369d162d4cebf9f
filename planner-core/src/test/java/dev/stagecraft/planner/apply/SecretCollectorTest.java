package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.eval.Value;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which connection values are secret, and what of a secret gets redacted. */
class SecretCollectorTest {
  private final Set<String> secrets = new HashSet<>();
  private final SecretCollector collector = new SecretCollector(secrets);

  @Test
  void secretConnectionArgumentsAreSensitiveWhateverTheirSourceAndOthersAreNot() {
    for (String name :
        List.of("password", "private_key", "bastion_password", "proxy_user_password")) {
      assertThat(SecretCollector.markConnectionSecrets(name, Value.of("x")).containsSensitive())
          .as(name)
          .isTrue();
    }
    assertThat(SecretCollector.markConnectionSecrets("host", Value.of("h")).containsSensitive())
        .isFalse();
  }

  @Test
  void onlyTheSecretAttributesOfEachBastionHopAreMarked() {
    Value bastions =
        Value.of(List.of(Map.of("host", "jump1", "password", "pw1"), Map.of("host", "jump2")));
    Value marked = SecretCollector.markConnectionSecrets("bastions", bastions);
    collector.collect(marked);
    assertThat(secrets).containsExactly("pw1");
    Value.ObjectValue first = (Value.ObjectValue) ((Value.ListValue) marked).elements().get(0);
    assertThat(first.get("host").isSensitive()).isFalse();
    assertThat(first.get("password").isSensitive()).isTrue();
  }

  @Test
  void eachLongLineOfAMultiLineSecretIsASecretButNotItsArmourOrShortLines() {
    String key =
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n"
            + "short\n"
            + "-----END OPENSSH PRIVATE KEY-----\n";
    collector.addLines(key);
    assertThat(secrets).containsExactly("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE");
  }

  @Test
  void aSingleLineSecretIsNotSplitAndEmptyOrNullIsNoSecret() {
    collector.addLines("a-long-single-line-password");
    collector.add("");
    collector.add(null);
    assertThat(secrets).isEmpty();
    collector.add("pw");
    assertThat(secrets).containsExactly("pw");
  }

  @Test
  void collectRecordsOnlyTheSensitivePartsOfAValue() {
    Value mixed =
        new Value.ListValue(List.of(Value.of("visible"), Value.of("hidden").mark(true)), false);
    collector.collect(mixed);
    assertThat(secrets).contains("hidden").doesNotContain("visible");
  }
}
