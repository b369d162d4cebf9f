package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.platform.auth.ServiceRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StackCredentialsTest {
  @TempDir Path data;

  @Test
  void generatesOneOwnerOnlyTokenPerRoleAndKeepsThemAcrossStarts() throws Exception {
    DevStackLayout layout = new DevStackLayout(data);

    StackCredentials first = StackCredentials.loadOrGenerate(layout);
    StackCredentials again = StackCredentials.loadOrGenerate(layout);

    Set<String> distinct = new HashSet<>();
    for (ServiceRole role : ServiceRole.values()) {
      Path file = layout.serviceTokenFile(role);
      assertThat(Files.getPosixFilePermissions(file))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      assertThat(first.token(role)).matches("[0-9a-f]{64}");
      assertThat(again.token(role)).isEqualTo(first.token(role));
      assertThat(StackCredentials.read(layout).token(role)).isEqualTo(first.token(role));
      distinct.add(first.token(role));
    }
    assertThat(distinct).hasSize(ServiceRole.values().length);
    assertThat(layout.serviceTokenFile(ServiceRole.OPERATOR).getFileName())
        .hasToString("operator-token");
    assertThat(layout.serviceTokenFile(ServiceRole.PLANNER).getFileName())
        .hasToString("service-token-planner");
  }

  @Test
  void removesTheSharedTokenFileOfEarlierVersions() throws Exception {
    DevStackLayout layout = new DevStackLayout(data);
    Files.writeString(data.resolve("service-token"), "old\n");

    StackCredentials.loadOrGenerate(layout);

    assertThat(data.resolve("service-token")).doesNotExist();
  }

  @Test
  void eachProcessGetsOnlyTheTokensItHoldsAndTheExecutorNone() throws Exception {
    StackCredentials tokens = StackCredentials.loadOrGenerate(new DevStackLayout(data));

    assertThat(tokens.env(StackService.EXECUTOR)).isEmpty();
    assertThat(tokens.env(StackService.PLANNER))
        .isEqualTo(Map.of("STAGECRAFT_SERVICE_TOKEN_PLANNER", tokens.token(ServiceRole.PLANNER)));
    assertThat(tokens.env(StackService.LOCK))
        .isEqualTo(
            Map.of(
                "STAGECRAFT_SERVICE_TOKEN_PLANNER", tokens.token(ServiceRole.PLANNER),
                "STAGECRAFT_SERVICE_TOKEN_STATE", tokens.token(ServiceRole.STATE)));
    assertThat(tokens.env(StackService.STATE))
        .isEqualTo(
            Map.of(
                "STAGECRAFT_SERVICE_TOKEN_PLANNER", tokens.token(ServiceRole.PLANNER),
                "STAGECRAFT_SERVICE_TOKEN_STATE", tokens.token(ServiceRole.STATE),
                "STAGECRAFT_OPERATOR_TOKEN", tokens.token(ServiceRole.OPERATOR)));
  }
}
