package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DevStackMainTest {
  private static final PrintStream OUT = new PrintStream(OutputStream.nullOutputStream());

  @Test
  void defaultsToDotStagecraftFixedPortsAndTheEmbeddedPostgres() {
    DevStackOptions o =
        DevStackMain.parse(new String[] {"--repo", "/r"}, Map.of("STAGECRAFT_HOME", "/h"), OUT);
    assertThat(o.dataDir()).isEqualTo(Path.of(".stagecraft").toAbsolutePath());
    assertThat(o.repoDir()).isEqualTo(Path.of("/r"));
    assertThat(o.stagecraftHome()).isEqualTo(Path.of("/h"));
    assertThat(o.ports())
        .containsEntry(StackService.PLANNER, 8080)
        .containsEntry(StackService.STATE, 8082)
        .containsEntry(StackService.LOCK, 8083)
        .containsEntry(StackService.EXECUTOR, 8084);
    assertThat(o.externalDb()).isNull();
  }

  @Test
  void usesTheExternalPostgresNamedByStagecraftDbUrl() {
    DevStackOptions o =
        DevStackMain.parse(
            new String[] {"--data-dir=/d", "--repo=/r", "--any-ports"},
            Map.of(
                "STAGECRAFT_DB_URL", "jdbc:postgresql://db:5432/sc",
                "STAGECRAFT_DB_USER", "sc",
                "STAGECRAFT_DB_PASSWORD", "pw"),
            OUT);
    assertThat(o.dataDir()).isEqualTo(Path.of("/d"));
    assertThat(o.externalDb())
        .isEqualTo(
            new DevStackOptions.ExternalDatabase("jdbc:postgresql://db:5432/sc", "sc", "pw"));
    assertThat(o.ports().values()).containsOnly(0);
  }

  @Test
  void findsTheRepositoryFromWhereItsClassesAre() {
    assertThat(DevStackMain.repoFromCodeLocation()).isEqualTo(TestRepo.root());
  }

  @Test
  void rejectsAnUnknownOption() {
    assertThatThrownBy(() -> DevStackMain.parse(new String[] {"--nope"}, Map.of(), OUT))
        .hasMessageContaining("unknown option --nope");
  }
}
