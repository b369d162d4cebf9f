package dev.stagecraft.planner.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A document that is not a plan is refused with an {@link PlanCodec.InvalidPlanException} that
 * names the JSON path of what is wrong and says what was expected; fields Stagecraft does not write
 * are ignored.
 */
class PlanCodecRefusalTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A plan with a replace, a sensitive attribute and outputs: every part a document can have. */
  private static String valid() {
    Plan plan =
        Scenario.config(
                """
                variable "pw" {
                  default   = "x"
                  sensitive = true
                }
                resource "terraform_data" "db" { input = var.pw }
                resource "stateful_provisioning" "app" {
                  count     = 2
                  state_key = "v2"
                }
                output "key" { value = stateful_provisioning.app[0].state_key }
                """)
            .state(
                Scenario.resource(
                    "stateful_provisioning",
                    "app",
                    Scenario.instance(0, "{\"id\":\"1\",\"state_key\":\"v1\"}")))
            .plan()
            .plan();
    return PlanCodec.encode(plan);
  }

  private static String edited(Consumer<ObjectNode> edit) throws Exception {
    ObjectNode root = (ObjectNode) JSON.readTree(valid());
    edit.accept(root);
    return JSON.writeValueAsString(root);
  }

  private static ObjectNode change(ObjectNode root, int i) {
    return (ObjectNode) root.withArray("resource_changes").get(i);
  }

  private static void refused(String json, String path, String problem) {
    assertThatThrownBy(() -> PlanCodec.decode(json))
        .isInstanceOfSatisfying(
            PlanCodec.InvalidPlanException.class, e -> assertThat(e.path()).isEqualTo(path))
        .hasMessage("not a plan document: " + path + ": " + problem);
  }

  @Test
  void refusesWhatIsNotJsonWithItsPosition() {
    assertThatThrownBy(() -> PlanCodec.decode("{\"format_version\": \"1.2\",\n  oops}"))
        .isInstanceOf(PlanCodec.InvalidPlanException.class)
        .hasMessageStartingWith(
            "not a plan document: (document): not JSON (line 2, column 3): Unexpected character");
    refused("[]", "(document)", "expected an object, found an array");
    assertThatThrownBy(() -> PlanCodec.decode("{\"format_version\":\"1.2\"} {}"))
        .isInstanceOf(PlanCodec.InvalidPlanException.class)
        .hasMessageStartingWith("not a plan document: (document): not JSON (line 1, column 2");
  }

  @Test
  void refusesAMissingOrUnknownFormatVersion() throws Exception {
    refused(edited(r -> r.remove("format_version")), "format_version", "missing");
    refused(
        edited(r -> r.put("format_version", "2.0")),
        "format_version",
        "\"2.0\" is not a version of Terraform's JSON plan format that is read (1.x)");
    refused(
        edited(r -> r.put("format_version", 1.2)),
        "format_version",
        "expected a string, found a number");
  }

  @Test
  void refusesAnActionStagecraftDoesNotPlanNamingWhereItIs() throws Exception {
    refused(
        edited(r -> change(r, 1).with("change").withArray("actions").removeAll().add("read")),
        "resource_changes[1].change.actions",
        "[\"read\"] is not an action Stagecraft plans (one of [\"no-op\"], [\"create\"],"
            + " [\"update\"], [\"delete\", \"create\"], [\"create\", \"delete\"], [\"delete\"],"
            + " [\"forget\"], [\"forget\", \"create\"])");
  }

  @Test
  void refusesAnUnknownReasonAModeAndABadInstanceKey() throws Exception {
    String[] reason = new String[1];
    String json =
        edited(
            r -> {
              for (JsonNode c : r.withArray("resource_changes")) {
                if (c.has("action_reason")) {
                  ((ObjectNode) c).put("action_reason", "replace_because_bored");
                  reason[0] = c.path("address").asText();
                }
              }
            });
    assertThat(reason[0]).isNotNull();
    assertThatThrownBy(() -> PlanCodec.decode(json))
        .isInstanceOf(PlanCodec.InvalidPlanException.class)
        .hasMessageContaining(".action_reason: \"replace_because_bored\" is not a reason")
        .hasMessageContaining("replace_because_tainted");
    refused(
        edited(r -> change(r, 0).put("mode", "data")),
        "resource_changes[0].mode",
        "\"data\" is not a mode Stagecraft plans (only \"managed\" resources)");
    refused(
        edited(r -> change(r, 0).put("index", 1.5)),
        "resource_changes[0].index",
        "1.5 is not an instance key (a whole number for count, a string for for_each)");
  }

  @Test
  void refusesMissingOrMistypedFieldsOfAChange() throws Exception {
    refused(edited(r -> change(r, 0).remove("change")), "resource_changes[0].change", "missing");
    refused(
        edited(r -> change(r, 0).put("address", 7)),
        "resource_changes[0].address",
        "expected a string, found a number");
    refused(
        edited(r -> change(r, 0).with("change").put("after_sensitive", true)),
        "resource_changes[0].change.after_sensitive",
        "expected false or an object naming the sensitive attributes, found true");
    refused(
        edited(r -> change(r, 0).with("change").put("before", "x")),
        "resource_changes[0].change.before",
        "expected an object, found a string");
  }

  @Test
  void refusesAnAddressPlannedTwice() throws Exception {
    refused(
        edited(r -> r.withArray("resource_changes").add(change(r, 0).deepCopy())),
        "resource_changes[3].address",
        "\""
            + PlanCodec.decode(valid()).resourceChanges().get(0).address()
            + "\" is planned twice (also at resource_changes[0])");
  }

  @Test
  void refusesABadOutputChangeOrStagecraftField() throws Exception {
    refused(
        edited(
            r ->
                ((ArrayNode) r.with("output_changes").with("key").withArray("actions"))
                    .removeAll()
                    .add("delete")
                    .add("create")),
        "output_changes.key.actions",
        "[\"delete\", \"create\"] is not an output change (expected [\"create\"], [\"update\"],"
            + " [\"no-op\"] or [\"delete\"])");
    refused(
        edited(r -> r.with("output_changes").with("key").put("after_unknown", "no")),
        "output_changes.key.after_unknown",
        "expected true or false, found a string");
    refused(
        edited(r -> r.with("stagecraft").put("prior_serial", -1)),
        "stagecraft.prior_serial",
        "expected a state serial (a whole number, 0 or more), found a number");
    refused(
        edited(r -> r.with("stagecraft").with("wait_for").put("stateful_provisioning.app[0]", "x")),
        "stagecraft.wait_for[\"stateful_provisioning.app[0]\"]",
        "expected an array, found a string");
  }

  @Test
  void ignoresFieldsStagecraftDoesNotWriteAndReadsAPlanWithoutItsOwnFields() throws Exception {
    String withExtras =
        edited(
            r -> {
              r.putObject("planned_values").put("x", 1);
              change(r, 0).put("relevant", true);
            });
    assertThat(PlanCodec.encode(PlanCodec.decode(withExtras))).isEqualTo(valid());

    PlanDocument foreign =
        PlanCodec.decode(
            edited(
                r -> {
                  r.remove("stagecraft");
                  r.remove("output_changes");
                }));
    assertThat(foreign.stagecraft()).isNull();
    assertThat(foreign.priorSerial()).isEqualTo(7);
    assertThat(foreign.priorLineage()).isEqualTo("l-1");
    assertThat(foreign.outputChanges()).isEmpty();
  }
}
