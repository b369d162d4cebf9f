package dev.stagecraft.schemas.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DispatchSealingTest {
  private static final String SECRET = "s3cr3t-Pa55-" + "x9Qz";
  private final SecretsKeyring keyring = SecretsKeyring.parse(SecretsKeyring.generateEntry("k1"));
  private final EventCodec codec =
      new EventCodec(
          "/stagecraft/test",
          Clock.fixed(Instant.parse("2026-11-21T10:00:00Z"), ZoneOffset.UTC),
          () -> "id-1");

  private static ActionDispatched dispatch() {
    ProvisionerStep local =
        new ProvisionerStep(
            "local-exec",
            "create",
            "fail",
            "echo " + SECRET,
            List.of(),
            Map.of("PASSWORD", SECRET),
            null,
            false,
            true);
    SshConnection ssh =
        new SshConnection("10.0.0.5", 22, "deploy", SECRET, null, null, null, 30, List.of())
            // the proxy password is sealed with the rest; the script path travels too
            .withProxy(new SshConnection.Proxy("socks5", "proxy.example", 1080, "tunnel", SECRET))
            .withScriptPath("/var/tmp/deploy_%RAND%.sh");
    ProvisionerStep remote =
        new ProvisionerStep(
            "remote-exec",
            "create",
            "fail",
            null,
            null,
            null,
            null,
            false,
            true,
            ssh,
            List.of("echo hi"),
            null,
            null,
            null,
            null,
            0,
            0);
    return new ActionDispatched(
        "run-1",
        "run-1/stateful_provisioning.app",
        "stateful_provisioning.app",
        "stateful_provisioning",
        "create",
        Map.of("id", "42", "state_key", "r1"),
        List.of(),
        List.of(local, remote),
        3,
        List.of(SECRET),
        null,
        null);
  }

  @Test
  void sealedDispatchCarriesNoSecretOnTheWireAndOpensToTheOriginal() throws Exception {
    ActionDispatched original = dispatch();

    ActionDispatched sealed = DispatchSealing.seal(original, keyring, "tenant-a", "prod");
    byte[] wire =
        EventCodec.encode(
            codec.wrapWithId(
                sealed.actionId(), "tenant-a", "prod", "run-1", 1, sealed.address(), sealed));

    String text = new String(wire, StandardCharsets.UTF_8);
    assertThat(text)
        .doesNotContain(SECRET)
        .doesNotContain(Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8)))
        .contains("\"sealed\"");
    assertThat(sealed.provisioners()).isEmpty();
    assertThat(sealed.sensitiveValues()).isEmpty();
    assertThat(new EventSchemaValidator().validate(text)).isEmpty();
    EventEnvelope received = EventCodec.decode(wire);
    ActionDispatched opened =
        DispatchSealing.open(
            EventCodec.data(received, ActionDispatched.class),
            keyring,
            received.tenant(),
            received.workspace());
    assertThat(opened).isEqualTo(original);
  }

  @Test
  void aDispatchInClearWithAProxyAndScriptPathMatchesTheSchemaAndRoundTrips() throws Exception {
    ActionDispatched original = dispatch();
    byte[] wire =
        EventCodec.encode(
            codec.wrapWithId(
                original.actionId(), "tenant-a", "prod", "run-1", 1, original.address(), original));

    assertThat(new EventSchemaValidator().validate(new String(wire, StandardCharsets.UTF_8)))
        .isEmpty();
    SshConnection decoded =
        EventCodec.data(EventCodec.decode(wire), ActionDispatched.class)
            .provisioners()
            .get(1)
            .connection();
    assertThat(decoded.proxy())
        .isEqualTo(new SshConnection.Proxy("socks5", "proxy.example", 1080, "tunnel", SECRET));
    assertThat(decoded.scriptPath()).isEqualTo("/var/tmp/deploy_%RAND%.sh");
    assertThat(decoded.proxy().toString()).doesNotContain(SECRET);
  }

  @Test
  void aBoxCopiedIntoAnotherTenantsOrActionsDispatchDoesNotOpen() {
    ActionDispatched sealed = DispatchSealing.seal(dispatch(), keyring, "tenant-a", "prod");

    assertThatThrownBy(() -> DispatchSealing.open(sealed, keyring, "tenant-b", "prod"))
        .isInstanceOf(UnsealException.class);
    assertThatThrownBy(() -> DispatchSealing.open(sealed, keyring, "tenant-a", "staging"))
        .isInstanceOf(UnsealException.class);
    ActionDispatched otherAction =
        new ActionDispatched(
            "run-2",
            "run-2/stateful_provisioning.app",
            sealed.address(),
            sealed.resourceType(),
            sealed.action(),
            sealed.attributes(),
            sealed.dependencies(),
            List.of(),
            sealed.fencingToken(),
            List.of(),
            null,
            null,
            sealed.sealed());
    assertThatThrownBy(() -> DispatchSealing.open(otherAction, keyring, "tenant-a", "prod"))
        .isInstanceOf(UnsealException.class)
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void aDispatchWithSecretsBothSealedAndInClearIsRefused() {
    ActionDispatched sealed = DispatchSealing.seal(dispatch(), keyring, "t", "w");
    ActionDispatched both =
        sealed.withSecrets(dispatch().provisioners(), List.of(), sealed.sealed());

    assertThatThrownBy(() -> DispatchSealing.open(both, keyring, "t", "w"))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("both sealed and in clear");
  }

  @Test
  void anUnsealedDispatchOpensAsItIs() throws Exception {
    assertThat(DispatchSealing.open(dispatch(), SecretsKeyring.none(), "t", "w"))
        .isEqualTo(dispatch());
  }

  @Test
  void anExecutorWithAKeyringRefusesADispatchInClearAndOneWithoutOpensIt() throws Exception {
    assertThatThrownBy(() -> DispatchSealing.openSealedOnly(dispatch(), keyring, "t", "w"))
        .isInstanceOf(UnsealException.class)
        .hasMessageContaining("is not sealed, but this executor has a keyring");
    assertThat(DispatchSealing.openSealedOnly(dispatch(), SecretsKeyring.none(), "t", "w"))
        .isEqualTo(dispatch());
    ActionDispatched sealed = DispatchSealing.seal(dispatch(), keyring, "t", "w");
    assertThat(DispatchSealing.openSealedOnly(sealed, keyring, "t", "w").provisioners())
        .isEqualTo(dispatch().provisioners());
  }

  @Test
  void aBoxOfAnUnsupportedAlgorithmIsRefused() {
    ActionDispatched sealed = DispatchSealing.seal(dispatch(), keyring, "t", "w");
    SealedBox box = sealed.sealed();
    ActionDispatched other =
        sealed.withSecrets(
            List.of(), List.of(), new SealedBox("none", box.kid(), box.nonce(), box.ciphertext()));

    assertThatThrownBy(() -> DispatchSealing.open(other, keyring, "t", "w"))
        .hasMessageContaining("unsupported algorithm");
  }
}
