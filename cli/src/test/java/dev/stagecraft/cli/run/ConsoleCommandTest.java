package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsoleCommandTest {
  @TempDir Path dir;

  @Test
  void printsTheConsoleTheDiscoveryDocumentNames() throws Exception {
    try (StubApi api = new StubApi()) {
      String base = StubPlannerHttp.base(api.server);
      api.server.removeContext("/.well-known/stagecraft.json");
      api.server.createContext(
          "/.well-known/stagecraft.json",
          ex ->
              StubPlannerHttp.reply(
                  ex, 200, "{\"console\":\"" + base + "/console\",\"runs\":\"x\"}"));
      assertThat(api.run(dir, "", "console")).as(api.err()).isZero();
      assertThat(api.out().strip()).isEqualTo(base + "/console");
    }
  }

  @Test
  void aServerWhoseDiscoveryNamesNoConsoleServesItUnderItsAddress() throws Exception {
    try (StubApi api = new StubApi()) {
      assertThat(api.run(dir, "", "console")).as(api.err()).isZero();
      assertThat(api.out().strip()).isEqualTo(StubPlannerHttp.base(api.server) + "/console");
    }
  }

  @Test
  void takesNoOtherArguments() throws Exception {
    try (StubApi api = new StubApi()) {
      assertThat(api.run(dir, "", "console", "extra")).isNotZero();
      assertThat(api.err()).contains("console takes only -open");
    }
  }
}
