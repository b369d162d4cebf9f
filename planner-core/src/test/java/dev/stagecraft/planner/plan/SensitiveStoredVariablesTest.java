package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A root variable named in {@link PlanRequest#sensitiveVariables()} (its value came from a
 * sensitive stored value, docs/adr/0078) is planned exactly as one declared {@code sensitive =
 * true}, though its block does not say so.
 */
class SensitiveStoredVariablesTest {
  private static final String SECRET = "s3cr3t-from-the-workspace";

  private static PlanResult plan(
      String config, Map<String, String> variables, Set<String> hcl, Set<String> sensitive) {
    return Planner.plan(
        new PlanRequest(
                "default", Map.of("main.tf", config), variables, List.of(), false, null, true, hcl)
            .withSensitiveVariables(sensitive),
        PriorState.empty());
  }

  private static final String CONFIG =
      """
      variable "token" {}
      resource "stateful_provisioning" "app" {
        state_key = "v1-${var.token}"
      }
      """;

  @Test
  void aStoredSensitiveValueIsRedactedFromThePlanTextAndJsonAsADeclaredOneIs() {
    PlanResult result = plan(CONFIG, Map.of("token", SECRET), Set.of(), Set.of("token"));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    Plan plan = result.plan();
    assertThat(PlanRenderer.render(plan))
        .contains("+ state_key = (sensitive value)")
        .doesNotContain(SECRET);
    assertThat(PlanJson.render(plan))
        .contains("\"after_sensitive\":{\"state_key\":true}")
        .doesNotContain(SECRET);
    assertThat(PlanCodec.encode(plan)).doesNotContain(SECRET);
    assertThat(result.applyContext().sensitiveValues()).contains(SECRET);

    // the same value, not named sensitive, is plain (what the test above would miss if broken)
    Plan plain = plan(CONFIG, Map.of("token", SECRET), Set.of(), Set.of()).plan();
    assertThat(PlanRenderer.render(plain)).contains("v1-" + SECRET);
    assertThat(PlanJson.render(plain)).contains(SECRET);
  }

  @Test
  void anOutputOfAStoredSensitiveValueMustBeDeclaredSensitive() {
    String config =
        """
        variable "token" {}
        output "t" {
          value = var.token
        }
        """;
    PlanResult result = plan(config, Map.of("token", SECRET), Set.of(), Set.of("token"));
    assertThat(result.diagnostics().errors())
        .extracting(Diagnostic::summary)
        .contains("Output refers to sensitive values");
    assertThat(result.renderDiagnostics()).doesNotContain(SECRET);
  }

  @Test
  void noErrorAboutASensitiveValueQuotesIt() {
    String config =
        """
        variable "port" {
          type = number
        }
        variable "ports" {
          type = list(number)
        }
        variable "bad_hcl" {}
        variable "checked" {
          validation {
            condition     = length(var.checked) > 100
            error_message = "too short: ${var.checked}"
          }
        }
        """;
    PlanResult result =
        plan(
            config,
            Map.of(
                "port", SECRET + "-1",
                "ports", "[\"" + SECRET + "-2\"]",
                "bad_hcl", "{ \"" + SECRET + "-3\" ",
                "checked", SECRET + "-4"),
            Set.of("ports", "bad_hcl"),
            Set.of("port", "ports", "bad_hcl", "checked"));
    assertThat(result.hasErrors()).isTrue();
    String errors = result.renderDiagnostics();
    assertThat(errors)
        .contains("var.port", "var.ports", "var.bad_hcl", "refers to a sensitive value")
        .doesNotContain(SECRET);

    // the messages quote a value that is not sensitive (what makes the check above meaningful)
    PlanResult plain =
        plan(
            config,
            Map.of(
                "port", SECRET + "-1",
                "ports", "[\"" + SECRET + "-2\"]",
                "bad_hcl", "{}",
                "checked", SECRET + "-4"),
            Set.of("ports", "bad_hcl"),
            Set.of());
    assertThat(plain.renderDiagnostics()).contains(SECRET + "-1", SECRET + "-4");
  }

  @Test
  void aNameThatIsNotAVariableChangesNothing() {
    PlanResult result =
        plan(CONFIG, Map.of("token", "plain"), Set.of(), Set.of("not_declared", "other"));
    assertThat(result.hasErrors()).as(result.renderDiagnostics()).isFalse();
    assertThat(PlanRenderer.render(result.plan())).contains("v1-plain");
  }
}
