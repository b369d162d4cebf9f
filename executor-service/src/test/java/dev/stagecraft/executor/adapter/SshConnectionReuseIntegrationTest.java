package dev.stagecraft.executor.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventType;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.sshtestkit.OpenSshServer;
import dev.stagecraft.sshtestkit.TcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor application (real Kafka, real OpenSSH sshd behind a counting TCP proxy) shares one
 * SSH connection between the actions of a run, one after the other, and never between runs.
 */
class SshConnectionReuseIntegrationTest {
  @RegisterExtension static final OpenSshServer SSHD = new OpenSshServer();
  private static final String TENANT = "acme";
  private static final String WORKSPACE = "prod";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  static final KafkaTestBroker KAFKA =
      KafkaTestBroker.withExecutor(
          "executor-ssh-reuse-kafka",
          Map.of(
              "stagecraft.instance-id", "executor-ssh-reuse",
              "stagecraft.executor.ssh-run-linger", "5m",
              "stagecraft.executor.ssh-idle-timeout", "5m"));

  private final EventCodec plannerCodec = EventCodec.forSource("/stagecraft/planner-service");
  private final List<EventEnvelope> received = new ArrayList<>();
  private TcpProxy proxy;
  @TempDir Path work;

  @BeforeEach
  void startProxy() throws Exception {
    proxy = new TcpProxy(SSHD.host(), SSHD.port());
  }

  @AfterEach
  void closeProxy() throws Exception {
    proxy.close();
  }

  @Test
  void actionsOfOneRunShareOneConnectionAndAnotherRunOpensItsOwn() throws Exception {
    String run = "run-" + UUID.randomUUID();
    runToSuccess(remoteExec(run, "first"));
    runToSuccess(remoteExec(run, "second"));
    assertThat(proxy.accepted()).isEqualTo(1);

    runToSuccess(remoteExec("run-" + UUID.randomUUID(), "third"));
    assertThat(proxy.accepted()).isEqualTo(2);
    assertThat(Files.readAllLines(work.resolve("out.txt")))
        .containsExactly("first", "second", "third");
  }

  private void runToSuccess(ActionDispatched action) {
    EventEnvelope envelope =
        plannerCodec.wrap(TENANT, WORKSPACE, action.runId(), 1, action.address(), action);
    KAFKA.planner().publish(envelope, action.runId() + "/" + action.address());
    await()
        .atMost(WAIT)
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              for (ConsumerRecord<String, byte[]> record :
                  KAFKA.events().poll(Duration.ofMillis(200))) {
                received.add(EventCodec.decode(record.value()));
              }
              return finished(action.actionId()) != null;
            });
    EventEnvelope finished = finished(action.actionId());
    assertThat(finished.data().path("outcome").asText())
        .as(finished.data().toString())
        .isEqualTo("succeeded");
  }

  private EventEnvelope finished(String actionId) {
    return received.stream()
        .filter(e -> e.type().equals(EventType.ACTION_FINISHED.type()))
        .filter(e -> actionId.equals(e.data().path("actionId").asText()))
        .findFirst()
        .orElse(null);
  }

  private ActionDispatched remoteExec(String runId, String word) throws Exception {
    SshConnection connection =
        new SshConnection(
            "127.0.0.1",
            proxy.port(),
            SSHD.user(),
            null,
            SSHD.ed25519Key(),
            null,
            SSHD.hostKey(),
            30,
            null);
    ProvisionerStep step =
        new ProvisionerStep(
            "remote-exec",
            null,
            null,
            null,
            null,
            null,
            null,
            false,
            false,
            connection,
            List.of("echo " + word + " >> " + work.resolve("out.txt")),
            null,
            null,
            null,
            null,
            0,
            0);
    String actionId = "action-" + UUID.randomUUID();
    return new ActionDispatched(
        runId,
        actionId,
        "stateful_provisioning." + word,
        "stateful_provisioning",
        "create",
        Map.of("id", word),
        List.of(),
        List.of(step),
        1,
        List.of(SSHD.ed25519Key()));
  }
}
