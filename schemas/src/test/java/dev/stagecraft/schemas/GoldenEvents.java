package dev.stagecraft.schemas;

import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.control.RunCancelRequested;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import dev.stagecraft.schemas.run.RunDecisionRequested;
import dev.stagecraft.schemas.run.RunRequested;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.seal.SealedBox;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.state.StateRecorded;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One representative event per golden file under {@code src/test/resources/golden}: every field
 * present (optional ones included), nested steps and connections, sealed values as they travel. The
 * key is the file name without {@code .json}: the event's CloudEvents type, or the type and a
 * variant ({@code <type>.<variant>}) for a second shape of the same event.
 */
final class GoldenEvents {
  static final String TENANT = "acme";
  static final String WORKSPACE = "prod";
  static final String RUN = "run-42";
  static final String ACTION = "run-42/a1";
  static final String ADDRESS = "null_resource.web[\"blue\"]";

  /** A fixed test key (never a real one), so sealed values are the same on every build. */
  private static final SecretsKeyring KEYRING =
      SecretsKeyring.parse("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");

  /**
   * A run credential of the real shape ({@code scr_} and 43 URL-safe characters), not a real one.
   */
  private static final String RUN_CREDENTIAL = "scr_goldenRunCredential" + "0".repeat(24);

  private static final String HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKqoGoldenHostKey";

  private GoldenEvents() {}

  /** File name (without {@code .json}) → event data, in {@link EventType} order. */
  static Map<String, Object> all() {
    Map<String, Object> events = new LinkedHashMap<>();
    events.put("dev.stagecraft.action.dispatched", dispatched());
    events.put("dev.stagecraft.action.dispatched.sealed", sealedDispatch());
    events.put(
        "dev.stagecraft.action.started", new ActionStarted(RUN, ACTION, ADDRESS, "executor-1"));
    events.put(
        "dev.stagecraft.action.log",
        new ActionLog(RUN, ACTION, ADDRESS, 1, "stderr", "deploy: restarting web"));
    events.put(
        "dev.stagecraft.action.step",
        new ActionStep(
            RUN,
            ACTION,
            ADDRESS,
            "executor-1",
            ActionStep.stepId(ACTION, 1),
            1,
            "remote-exec",
            "deploy@10.0.0.5:22",
            ActionStep.FAILED,
            "command exited with status 2"));
    events.put(
        "dev.stagecraft.action.heartbeat",
        new ActionHeartbeat(
            RUN, ACTION, ADDRESS, "executor-1", 1, "remote-exec", "deploy@10.0.0.5:22"));
    events.put("dev.stagecraft.action.finished", finished());
    events.put(
        "dev.stagecraft.state.recorded",
        new StateRecorded(
            RUN,
            ACTION,
            ADDRESS,
            "failed",
            "command exited with status 2",
            17,
            "5f0c2d9e-web-blue"));
    events.put(
        "dev.stagecraft.run.transitioned",
        new RunTransitioned(
            RUN,
            "planned",
            "Plan: 1 to add, 0 to change, 0 to destroy",
            "sha256:9f2c5e",
            "2026-11-21T11:00:00Z"));
    events.put(
        "dev.stagecraft.run.requested",
        new RunRequested(
            WORKSPACE,
            new RunRequested.Configuration(
                new TreeMap<>(Map.of("main.tf", "resource \"null_resource\" \"web\" {}\n")), null),
            new TreeMap<>(Map.of("revision", "abc123", "replicas", "3")),
            "deploy app rev abc123 to prod",
            "alice",
            "slack-1234"));
    events.put(
        "dev.stagecraft.run.requested.version",
        new RunRequested(
            WORKSPACE,
            new RunRequested.Configuration(null, "cv-7f3a"),
            null,
            null,
            "ci",
            "ci-pipeline-991"));
    events.put(
        "dev.stagecraft.run.decision-requested",
        new RunDecisionRequested(
            RUN, RunDecisionRequested.APPROVE, "sha256:9f2c5e", "alice", "looks good"));
    events.put(
        "dev.stagecraft.run.cancel-requested", new RunCancelRequested(RUN, "canceled by alice"));
    events.put(
        "dev.stagecraft.lock.force-unlocked",
        new LockForceUnlocked(
            "5c1a",
            "terraform:5c1a",
            4,
            "api-token:ab12",
            "holder crashed",
            "terraform-http-backend"));
    events.put(
        "dev.stagecraft.lock.lease-expired",
        new LockLeaseExpired("7d2e", RUN, 5, Instant.parse("2026-11-21T10:00:01.250Z")));
    return events;
  }

  /** A sealed attribute value, as the planner and the state service write it. */
  private static String sealedPassword() {
    return SealedValues.seal(
        KEYRING,
        "hunter2-golden",
        SealedValues.context(TENANT, WORKSPACE, ADDRESS, List.of("triggers", "password")));
  }

  private static Map<String, Object> attributes() {
    Map<String, Object> triggers = new TreeMap<>();
    triggers.put("password", sealedPassword());
    triggers.put("revision", "abc123");
    Map<String, Object> attributes = new TreeMap<>();
    attributes.put("id", "5f0c2d9e-web-blue");
    attributes.put("triggers", triggers);
    attributes.put("replicas", 3);
    attributes.put("enabled", true);
    attributes.put("tags", List.of("web", "blue"));
    return attributes;
  }

  private static SshConnection connection() {
    return new SshConnection(
        "10.0.0.5",
        22,
        "deploy",
        "ssh-password-golden",
        "-----BEGIN OPENSSH PRIVATE KEY-----\ngolden\n-----END OPENSSH PRIVATE KEY-----\n",
        "ssh-ed25519-cert-v01@openssh.com AAAAgoldencert",
        HOST_KEY,
        300,
        List.of(
            new SshConnection.Bastion(
                "jump.example.net",
                2222,
                "ops",
                "bastion-password-golden",
                "-----BEGIN OPENSSH PRIVATE KEY-----\nbastion\n-----END OPENSSH PRIVATE KEY-----\n",
                "ssh-ed25519-cert-v01@openssh.com AAAAbastioncert",
                HOST_KEY,
                List.of(HOST_KEY + " tenant known_hosts"))),
        List.of(HOST_KEY + " first use in workspace prod"),
        new SshConnection.Proxy(
            SshConnection.Proxy.SOCKS5, "proxy.example.net", 1080, "proxy-user", "proxy-pw"),
        "/tmp/stagecraft_%RAND%.sh");
  }

  private static List<ProvisionerStep> provisioners() {
    ProvisionerStep local =
        new ProvisionerStep(
            "local-exec",
            "create",
            "continue",
            "./notify.sh \"$TOKEN\"",
            List.of("/bin/bash", "-c"),
            Map.of("TOKEN", "api-token-golden"),
            "/srv/deploy",
            true,
            true,
            null,
            null,
            null,
            null,
            null,
            null,
            120,
            2);
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
            false,
            connection(),
            List.of("sudo systemctl restart web", "curl -fsS localhost:8080/health"),
            List.of("#!/bin/sh\necho migrated\n"),
            null,
            null,
            null,
            600,
            0);
    ProvisionerStep file =
        new ProvisionerStep(
            "file",
            "create",
            "fail",
            null,
            null,
            null,
            null,
            false,
            false,
            connection(),
            null,
            null,
            "/etc/web/app.conf",
            "listen = 8080\n",
            Map.of("conf.d/extra.conf", "ZXh0cmEgPSB0cnVlCg=="),
            0,
            0);
    return List.of(local, remote, file);
  }

  private static ActionDispatched dispatched() {
    return new ActionDispatched(
        RUN,
        ACTION,
        ADDRESS,
        "null_resource",
        "replace",
        attributes(),
        List.of("null_resource.db", "terraform_data.config"),
        provisioners(),
        7,
        List.of("api-token-golden", "ssh-password-golden"),
        true,
        false,
        null,
        RUN_CREDENTIAL,
        "null_resource.web");
  }

  /** With a secrets key: provisioners, sensitive values and run credential travel sealed. */
  private static ActionDispatched sealedDispatch() {
    SealedBox box =
        new SealedBox(
            SealedBox.ALG, "k1", "AAECAwQFBgcICQoL", "c2VhbGVkIHByb3Zpc2lvbmVycyBhbmQgdGFn");
    return new ActionDispatched(
        RUN,
        ACTION,
        ADDRESS,
        "null_resource",
        "create",
        attributes(),
        List.of("null_resource.db"),
        List.of(),
        7,
        List.of(),
        false,
        true,
        box,
        null,
        null);
  }

  private static ActionFinished finished() {
    return new ActionFinished(
            RUN,
            ACTION,
            ADDRESS,
            "null_resource",
            "replace",
            ActionFinished.FAILED,
            2,
            "remote-exec step 1: command exited with status 2",
            attributes(),
            List.of("null_resource.db", "terraform_data.config"),
            7,
            "executor-1",
            true,
            false,
            List.of(
                new LearnedHostKey(
                    "jump.example.net", 2222, HOST_KEY, "SHA256:goldenFingerprint0000")),
            null,
            "null_resource.web")
        .provenWith(RUN_CREDENTIAL);
  }
}
