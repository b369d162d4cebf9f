package dev.stagecraft.planner.service.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TriggerSignatureTest {
  static final byte[] BODY = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

  @Test
  void signsTimestampDotBodyWithHmacSha256AsAnyHmacLibraryWould() {
    // python3: hmac.new(b'sct_test', b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
    assertThat(TriggerSignature.sign("sct_test", 1_700_000_000L, BODY))
        .isEqualTo("sha256=fa906ac171f0cfabde5672ad795fffb2efc632894def3f35570332982c0ca7dc");
  }

  @Test
  void rejectsAnotherSecretAnotherTimestampOrAnotherBody() {
    String good = TriggerSignature.sign("sct_test", 1_700_000_000L, BODY);
    assertThat(TriggerSignature.matches("sct_test", 1_700_000_000L, BODY, good)).isTrue();
    assertThat(TriggerSignature.matches("sct_other", 1_700_000_000L, BODY, good)).isFalse();
    assertThat(TriggerSignature.matches("sct_test", 1_700_000_001L, BODY, good)).isFalse();
    assertThat(
            TriggerSignature.matches(
                "sct_test", 1_700_000_000L, "{\"a\":2}".getBytes(StandardCharsets.UTF_8), good))
        .isFalse();
    assertThat(TriggerSignature.matches("sct_test", 1_700_000_000L, BODY, null)).isFalse();
  }
}
