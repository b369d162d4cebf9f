package dev.stagecraft.executor.step;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CommandEchoTest {

  @Test
  void formatsTheArgumentVectorLikeGoQuotedStrings() {
    assertThat(CommandEcho.of(List.of("/bin/sh", "-c", "echo \"a\\b\"\n\tdone")))
        .isEqualTo("Executing: [\"/bin/sh\" \"-c\" \"echo \\\"a\\\\b\\\"\\n\\tdone\"]");
  }

  @Test
  void escapesControlCharactersAndKeepsUnicode() {
    assertThat(CommandEcho.goQuote("é\u0001")).isEqualTo("\"é\\x01\"");
  }
}
