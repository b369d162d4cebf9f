package dev.stagecraft.cli.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.devstack.DevStackPointer;
import dev.stagecraft.devstack.StackFiles;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StackLocatorTest {
  @TempDir Path home;

  private CliContext context(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.put("STAGECRAFT_HOME", home.toString());
    return new CliContext(
        home,
        all,
        new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(new ByteArrayOutputStream()),
        new BufferedReader(new StringReader("")));
  }

  private void devStackPointer(String planner, String token) throws Exception {
    StackFiles.writeJson(
        home.resolve("dev-stack.json"), new DevStackPointer(planner, token, "/data"), true);
  }

  @Test
  void prefersTheEnvironmentOverTheDevStack() throws Exception {
    devStackPointer("http://127.0.0.1:8080", "sc_dev");
    StackLocator.ServerTarget target =
        StackLocator.locate(
            context(Map.of("STAGECRAFT_ADDR", "https://sc.example/", "STAGECRAFT_TOKEN", "sc_x")));
    assertThat(target.address()).isEqualTo(URI.create("https://sc.example"));
    assertThat(target.token()).isEqualTo("sc_x");
  }

  @Test
  void usesTheDevStackPointerWhenTheEnvironmentIsEmpty() throws Exception {
    devStackPointer("http://127.0.0.1:8080", "sc_dev");
    StackLocator.ServerTarget target = StackLocator.locate(context(Map.of()));
    assertThat(target.address()).isEqualTo(URI.create("http://127.0.0.1:8080"));
    assertThat(target.token()).isEqualTo("sc_dev");
  }

  @Test
  void neverSendsTheDevTokenToAnotherServer() throws Exception {
    devStackPointer("http://127.0.0.1:8080", "sc_dev");
    assertThatThrownBy(
            () -> StackLocator.locate(context(Map.of("STAGECRAFT_ADDR", "https://sc.example"))))
        .isInstanceOf(StackLocator.NoServerException.class)
        .hasMessageContaining("Set STAGECRAFT_TOKEN");
    assertThat(
            StackLocator.locate(context(Map.of("STAGECRAFT_ADDR", "http://127.0.0.1:8080/")))
                .token())
        .isEqualTo("sc_dev");
  }

  @Test
  void failsWithHowToStartTheDevStackWhenNothingIsConfigured() {
    assertThatThrownBy(() -> StackLocator.locate(context(Map.of())))
        .isInstanceOf(StackLocator.NoServerException.class)
        .hasMessage(
            "No Stagecraft server found. Start the dev stack with `./stagecraft up -detach`, or"
                + " set STAGECRAFT_ADDR and STAGECRAFT_TOKEN.");
  }
}
