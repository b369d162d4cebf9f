package dev.stagecraft.planner.service.adapter.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A decision's free-text comment is logged on one line, whatever the bot sent. */
class DecisionLogLineTest {

  @Test
  void controlCharactersOfACommentBecomeSpacesSoItCannotForgeLogLines() {
    String forged = "looks good\n09:00:00.000 INFO  [main] approved by admin\r\u0007é ✓";

    String logged = TriggerBeans.RunRequestListener.printable(forged);

    assertThat(logged)
        .isEqualTo("looks good 09:00:00.000 INFO  [main] approved by admin  é ✓")
        .doesNotContain("\n")
        .doesNotContain("\r");
  }
}
