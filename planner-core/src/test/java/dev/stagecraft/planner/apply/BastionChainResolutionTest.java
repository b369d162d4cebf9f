package dev.stagecraft.planner.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorState;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.schemas.action.SshConnection.Bastion;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code bastions} connection argument (several hops, nearest first) and {@code retries}. */
class BastionChainResolutionTest {
  @TempDir Path dir;

  private ActionResolution resolve(String connection) {
    String config =
        """
        variable "hop_password" {
          default   = "hop2-secret-pw"
          sensitive = true
        }
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          provisioner "remote-exec" {
            inline = ["hostname"]
            connection {
        %s
            }
          }
        }
        """
            .formatted(connection);
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, dir),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result
        .applyContext()
        .resolve(
            result.plan().action("stateful_provisioning.app").orElseThrow(), Map.of(), () -> "a1");
  }

  private Diagnostic onlyError(ActionResolution r) {
    assertThat(r.hasErrors()).isTrue();
    assertThat(r.diagnostics().errors()).hasSize(1);
    return r.diagnostics().errors().get(0);
  }

  @Test
  void resolvesEveryHopNearestFirstWithTheConnectionsDefaults() {
    ActionResolution r =
        resolve(
            """
                  host        = "10.0.2.7"
                  user        = "deploy"
                  private_key = "target-key-text"
                  bastions = [
                    { host = "jump1.example.com", port = 2201, user = "ops", host_key = "ssh-ed25519 AAAA1" },
                    { host = "jump2.internal", password = var.hop_password, private_key = "hop2-key-text" },
                  ]
            """);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    SshConnection c = r.steps().get(0).connection();
    assertThat(c.bastions())
        .containsExactly(
            // port, user and credentials default to the connection's, as with bastion_*
            new Bastion(
                "jump1.example.com", 2201, "ops", null, "target-key-text", "ssh-ed25519 AAAA1"),
            new Bastion("jump2.internal", 22, "deploy", "hop2-secret-pw", "hop2-key-text", null));
    // the secrets of each hop are redacted, its host names are not
    assertThat(r.sensitiveValues())
        .contains("hop2-secret-pw", "hop2-key-text", "target-key-text")
        .doesNotContain("jump1.example.com", "jump2.internal", "ops");
  }

  @Test
  void anEmptyListMeansNoHop() {
    ActionResolution r =
        resolve(
            """
                  host     = "10.0.2.7"
                  password = "pw"
                  bastions = []
            """);
    assertThat(r.hasErrors()).as(r.renderDiagnostics()).isFalse();
    assertThat(r.steps().get(0).connection().bastions()).isEmpty();
  }

  @Test
  void bastionHostAndBastionsTogetherAreAnErrorAtBastions() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host         = "10.0.2.7"
                      password     = "pw"
                      bastion_host = "jump0"
                      bastions     = [{ host = "jump1" }]
                """));
    assertThat(d.summary()).isEqualTo("Conflicting connection arguments");
    assertThat(d.detail()).contains("bastion_host", "bastions", "first entry");
    assertThat(d.range().toString()).isEqualTo("main.tf:13:7");
  }

  @Test
  void aHopWithoutHostIsAnError() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = [{ host = "jump1" }, { user = "ops" }]
                """));
    assertThat(d.summary()).isEqualTo("Missing bastion host");
    assertThat(d.detail()).contains("bastions[1]");
    assertThat(d.range().toString()).isEqualTo("main.tf:12:7");
  }

  @Test
  void anUnknownHopAttributeIsAnErrorNamingTheAcceptedOnes() {
    Diagnostic d =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = [{ host = "jump1", certificate = "cert" }]
                """));
    assertThat(d.summary()).isEqualTo("Unsupported bastion attribute");
    assertThat(d.detail()).contains("bastions[0]", "\"certificate\"", "host, port, user");
  }

  @Test
  void aBadPortOrANonObjectHopIsAnError() {
    Diagnostic port =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = [{ host = "jump1", port = 70000 }]
                """));
    assertThat(port.detail()).contains("bastions[0].port", "1 to 65535", "70000");

    Diagnostic notAnObject =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = ["jump1"]
                """));
    assertThat(notAnObject.detail()).contains("bastions[0] must be an object");

    Diagnostic notAList =
        onlyError(
            resolve(
                """
                      host     = "10.0.2.7"
                      password = "pw"
                      bastions = "jump1"
                """));
    assertThat(notAList.detail()).contains("must be a list of objects");
  }

  @Test
  void retriesMarksAStepSafeToRunAgainAndMustBeAWholeNumber() {
    String config =
        """
        resource "stateful_provisioning" "app" {
          state_key = "v1"
          provisioner "remote-exec" {
            inline  = ["hostname"]
            retries = %s
            connection {
              host     = "10.0.2.7"
              password = "pw"
            }
          }
        }
        """;
    ActionResolution ok = resolvePlain(config.formatted("3"));
    assertThat(ok.hasErrors()).as(ok.renderDiagnostics()).isFalse();
    assertThat(ok.steps().get(0).retries()).isEqualTo(3);

    Diagnostic negative = onlyError(resolvePlain(config.formatted("-1")));
    assertThat(negative.summary()).isEqualTo("Invalid argument value");
    assertThat(negative.detail()).contains("\"retries\"", "whole number from 0");
    assertThat(negative.range().toString()).isEqualTo("main.tf:5:5");
  }

  private ActionResolution resolvePlain(String config) {
    PlanResult result =
        Planner.plan(
            new PlanRequest("default", Map.of("main.tf", config), Map.of(), List.of(), false, dir),
            PriorState.empty());
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    return result
        .applyContext()
        .resolve(
            result.plan().action("stateful_provisioning.app").orElseThrow(), Map.of(), () -> "a1");
  }
}
