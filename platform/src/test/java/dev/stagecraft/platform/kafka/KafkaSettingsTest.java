package dev.stagecraft.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KafkaSettingsTest {

  @Test
  void withCredentialsEveryClientAuthenticatesWithScram() {
    KafkaSettings s = KafkaSettings.of("127.0.0.1:9092", "executor", "s3cret-password", "");

    for (var p :
        java.util.List.of(
            s.client(), s.producer("p"), s.consumer("g", "c", "earliest"), s.security())) {
      assertThat(p.getProperty("security.protocol")).isEqualTo("SASL_PLAINTEXT");
      assertThat(p.getProperty("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
      assertThat(p.getProperty("sasl.jaas.config"))
          .isEqualTo(
              "org.apache.kafka.common.security.scram.ScramLoginModule required"
                  + " username=\"executor\" password=\"s3cret-password\";");
    }
    assertThat(s.client().getProperty("bootstrap.servers")).isEqualTo("127.0.0.1:9092");
    assertThat(s.principal()).isEqualTo("executor");
    assertThat(KafkaSettings.of("h:1", "planner", "pw", "sasl_ssl").security())
        .containsEntry("security.protocol", "SASL_SSL");
  }

  @Test
  void withoutCredentialsClientsConnectUnauthenticated() {
    KafkaSettings s = KafkaSettings.of("127.0.0.1:9092", "", "", "SASL_PLAINTEXT");

    assertThat(s.credentials()).isNull();
    assertThat(s.security()).isEmpty();
    assertThat(s.producer("p")).doesNotContainKeys("security.protocol", "sasl.jaas.config");
    assertThat(s.principal()).isEqualTo("ANONYMOUS");
  }

  @Test
  void theSettingsNeverShowThePassword() {
    KafkaSettings s = KafkaSettings.of("h:1", "planner", "never-shown-password", null);

    assertThat(s.toString()).contains("planner").doesNotContain("never-shown-password");
  }

  @Test
  void halfACredentialIsRefusedNamingTheMissingVariable() {
    assertThatThrownBy(() -> KafkaSettings.of("h:1", "planner", "", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("STAGECRAFT_KAFKA_USERNAME is set but STAGECRAFT_KAFKA_PASSWORD");
    assertThatThrownBy(() -> KafkaSettings.of("h:1", " ", "pw", null))
        .hasMessageStartingWith("STAGECRAFT_KAFKA_PASSWORD is set but STAGECRAFT_KAFKA_USERNAME");
  }

  @Test
  void aValueAJaasLineCannotCarryOrAnUnknownProtocolIsRefusedWithoutQuotingIt() {
    assertThatThrownBy(() -> KafkaSettings.of("h:1", "planner", "pa\"ss", null))
        .hasMessageStartingWith("STAGECRAFT_KAFKA_PASSWORD contains a quote")
        .hasMessageNotContaining("pa\"ss");
    assertThatThrownBy(() -> KafkaSettings.of("h:1", "planner", "pw", "PLAINTEXT"))
        .hasMessageContaining("STAGECRAFT_KAFKA_SECURITY_PROTOCOL is PLAINTEXT")
        .hasMessageContaining("SASL_SSL");
  }
}
