package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.List;
import org.junit.jupiter.api.Test;

class KnownHostKeysTest {
  private static final String WEB = "ssh-ed25519 AAAAweb first use in workspace prod (run r1)";
  private static final String JUMP = "ssh-ed25519 AAAAjump tenant known hosts";

  private static ProvisionerStep remoteExec(SshConnection connection) {
    return new ProvisionerStep(
        "remote-exec",
        "create",
        "fail",
        null,
        null,
        null,
        null,
        false,
        false,
        connection,
        List.of("true"),
        null,
        null,
        null,
        null,
        0,
        0);
  }

  @Test
  void attachesTheKeysOfEachHostAndPortToTheConnectionAndItsBastions() {
    KnownHostKeys keys =
        KnownHostKeys.builder().add("web.example", 22, WEB).add("jump", 2222, JUMP).build();
    SshConnection connection =
        new SshConnection(
            "WEB.example",
            0,
            "deploy",
            null,
            "k",
            null,
            null,
            30,
            List.of(
                new SshConnection.Bastion("jump", 2222, "ops", null, "k", null),
                new SshConnection.Bastion("jump", 22, "ops", null, "k", null)));

    List<ProvisionerStep> steps = keys.attachTo(List.of(remoteExec(connection)));

    SshConnection attached = steps.getFirst().connection();
    assertThat(attached.knownHostKeys()).containsExactly(WEB);
    assertThat(attached.bastions().get(0).knownHostKeys()).containsExactly(JUMP);
    assertThat(attached.bastions().get(1).knownHostKeys()).isEmpty();
    assertThat(attached.withKnownHostKeys(List.of()).withBastions(connection.bastions()))
        .isEqualTo(connection);
  }

  @Test
  void leavesStepsWithoutConnectionOrWithUnknownHostsAsTheyWere() {
    KnownHostKeys keys = KnownHostKeys.builder().add("web.example", 22, WEB).build();
    ProvisionerStep local =
        new ProvisionerStep("local-exec", "create", "fail", "true", null, null, null, false, false);
    ProvisionerStep other =
        remoteExec(new SshConnection("db", 22, "u", null, "k", null, null, 30, null));
    ProvisionerStep otherPort =
        remoteExec(new SshConnection("web.example", 2222, "u", null, "k", null, null, 30, null));

    assertThat(keys.attachTo(List.of(local, other, otherPort)))
        .containsExactly(local, other, otherPort);
    assertThat(KnownHostKeys.NONE.attachTo(List.of(other))).containsExactly(other);
  }
}
