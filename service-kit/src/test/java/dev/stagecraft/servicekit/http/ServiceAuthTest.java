package dev.stagecraft.servicekit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ServiceAuthTest {

  @Test
  void acceptsTheServiceTokenAsABearerTokenInAnyCase() {
    ServiceAuth auth = new ServiceAuth("s3cret");

    assertThatCode(() -> auth.require(" bearer s3cret ")).doesNotThrowAnyException();
  }

  @Test
  void refusesAWrongOrMissingTokenWith401() {
    ServiceAuth auth = new ServiceAuth("s3cret");

    assertThatThrownBy(() -> auth.require("Bearer other"))
        .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(401));
    assertThatThrownBy(() -> auth.require(null)).isInstanceOf(Problem.class);
    assertThatThrownBy(() -> auth.require("Basic czNjcmV0")).isInstanceOf(Problem.class);
  }

  @Test
  void refusesEveryCallWhenNoServiceTokenIsConfigured() {
    assertThatThrownBy(() -> new ServiceAuth("").require("Bearer ")).isInstanceOf(Problem.class);
  }

  @Test
  void bearerTakesTheTokenOfBearerHeadersOnly() {
    assertThat(ServiceAuth.bearer("Bearer  sc_abc ")).isEqualTo("sc_abc");
    assertThat(ServiceAuth.bearer("Basic abc")).isNull();
    assertThat(ServiceAuth.bearer(null)).isNull();
  }
}
