package dev.stagecraft.cli.knownhosts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.knownhosts.KnownHostsCommand.HostPort;
import org.junit.jupiter.api.Test;

class KnownHostsCommandTest {

  @Test
  void readsHostWithAndWithoutPortAndBracketedIpv6() {
    assertThat(HostPort.parse("web.example")).isEqualTo(new HostPort("web.example", 22));
    assertThat(HostPort.parse("127.0.0.1:2222")).isEqualTo(new HostPort("127.0.0.1", 2222));
    assertThat(HostPort.parse("[::1]:2200")).isEqualTo(new HostPort("::1", 2200));
    assertThat(HostPort.parse("::1")).isEqualTo(new HostPort("::1", 22));
    assertThat(new HostPort("::1", 2200)).hasToString("[::1]:2200");
  }

  @Test
  void refusesAPortThatIsNotANumberInRange() {
    assertThatThrownBy(() -> HostPort.parse("web:ssh"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("must be a number 1-65535");
    assertThatThrownBy(() -> HostPort.parse("web:0")).isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> HostPort.parse(":22")).hasMessageContaining("names no host");
  }

  @Test
  void isReachedAsASubcommandAndRefusesUnknownOptions() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    dev.stagecraft.cli.CliContext ctx =
        new dev.stagecraft.cli.CliContext(
            java.nio.file.Path.of("").toAbsolutePath(),
            java.util.Map.of(),
            new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true),
            new java.io.PrintStream(err, true),
            new java.io.BufferedReader(new java.io.StringReader("")));

    int code =
        new dev.stagecraft.cli.StagecraftCli()
            .run(new String[] {"known-hosts", "remove", "-force", "h"}, ctx);

    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .contains("Error: unknown option -force", "Usage: stagecraft known-hosts remove");
  }
}
