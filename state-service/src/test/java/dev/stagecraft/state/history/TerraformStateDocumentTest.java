package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.state.history.DocumentDecider.Outcome;
import dev.stagecraft.state.history.DocumentDecider.Rejection;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Push (import), pull (render), versions and diffs of whole Terraform v4 documents: a realistic
 * state written by hand in Terraform's format goes in and comes back with the same JSON semantics.
 */
class TerraformStateDocumentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WEB_1 = "aws_instance.web[1]";

  static Map<String, Object> realistic() throws IOException {
    try (InputStream in =
        TerraformStateDocumentTest.class.getResourceAsStream("/terraform/realistic-v4.tfstate")) {
      return JSON.readValue(in, new TypeReference<>() {});
    }
  }

  /** The events as the store keeps them: written as JSON and read back (jsonb round trip). */
  private static WorkspaceState foldStored(WorkspaceState start, List<StateEvent> events)
      throws IOException {
    WorkspaceState state = start;
    ObjectMapper stored = EventCodec.mapper();
    for (StateEvent event : events) {
      state = state.apply(stored.readValue(stored.writeValueAsString(event), event.getClass()));
    }
    return state;
  }

  private static Map<String, Object> copy(Map<String, Object> doc) throws IOException {
    return JSON.readValue(JSON.writeValueAsBytes(doc), new TypeReference<>() {});
  }

  @Test
  void aRealisticStatePushedIntoAnEmptyWorkspaceIsPulledBackWithTheSameJsonSemantics()
      throws IOException {
    Map<String, Object> original = realistic();
    assertThat(TerraformStateValidator.validate(original)).isEmpty();

    Outcome outcome = DocumentDecider.push(copy(original), WorkspaceState.EMPTY, false, 0, 0);
    WorkspaceState state = foldStored(WorkspaceState.EMPTY, outcome.events());

    assertThat(outcome.accepted()).isTrue();
    assertThat(state.serial()).isEqualTo(17);
    assertThat(state.lineage()).isEqualTo("3f2c8a4e-6b1d-4b7e-9a51-0c2f7d1e9b64");
    assertThat(state.instances().get(WEB_1).tainted()).isTrue();
    assertThat(state.instances().get("aws_instance.web[0]").dependencies())
        .containsExactly("aws_security_group.web", "data.aws_ami.ubuntu");
    assertThat(state.instances().get("aws_instance.web[0]").createBeforeDestroy()).isTrue();
    assertThat(state.instances()).containsKey("stateful_provisioning.deploy[\"green\"]");
    assertThat(state.instances()).containsKey("module.db.aws_db_instance.main");
    Map<String, Object> pulled = TerraformStateV4.render(state, state.lineage());
    assertThat(DocumentDecider.sameJson(pulled, original))
        .as("pulled:\n%s", JSON.writeValueAsString(pulled))
        .isTrue();
    // and through a snapshot (the store may fold from one)
    WorkspaceState fromSnapshot =
        StateSnapshot.fromSnapshot(
            JSON.readValue(
                JSON.writeValueAsBytes(StateSnapshot.toSnapshot(state)), new TypeReference<>() {}));
    assertThat(DocumentDecider.sameJson(TerraformStateV4.render(fromSnapshot, null), original))
        .isTrue();
  }

  @Test
  void aRunsWriteReplacesOnlyItsInstanceAndKeepsEverythingElseOfThePushedDocument()
      throws IOException {
    Map<String, Object> original = realistic();
    WorkspaceState pushed =
        foldStored(
            WorkspaceState.EMPTY,
            DocumentDecider.push(copy(original), WorkspaceState.EMPTY, false, 0, 0).events());

    WorkspaceState after =
        pushed.apply(
            new StateEvent.InstanceWritten(
                "stateful_provisioning.deploy[\"blue\"]",
                "stateful_provisioning",
                Map.of("id", "deploy-blue", "state_key", "r43"),
                List.of("aws_instance.web"),
                false,
                StateEvent.WriteKind.REPLACED));
    Map<String, Object> pulled = TerraformStateV4.render(after, after.lineage());

    assertThat(after.serial()).isEqualTo(18);
    @SuppressWarnings("unchecked")
    Map<String, Object> expected = copy(original);
    expected.put("serial", 18);
    setAttribute(expected, "deploy", "blue", "state_key", "r43");
    assertThat(DocumentDecider.sameJson(pulled, expected))
        .as("pulled:\n%s", JSON.writeValueAsString(pulled))
        .isTrue();
  }

  @SuppressWarnings("unchecked")
  private static void setAttribute(
      Map<String, Object> doc, String resource, String key, String name, Object value) {
    for (Object r : (List<Object>) doc.get("resources")) {
      Map<String, Object> res = (Map<String, Object>) r;
      if (resource.equals(res.get("name"))) {
        for (Object i : (List<Object>) res.get("instances")) {
          Map<String, Object> instance = (Map<String, Object>) i;
          if (key.equals(instance.get("index_key"))) {
            Map<String, Object> attributes =
                new LinkedHashMap<>((Map<String, Object>) instance.get("attributes"));
            attributes.put(name, value);
            instance.put("attributes", attributes);
          }
        }
      }
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void aMalformedDocumentIsRejectedWithTheJsonPathOfEveryProblem() throws IOException {
    Map<String, Object> doc = realistic();
    doc.put("version", 3);
    doc.remove("lineage");
    List<Object> resources = (List<Object>) doc.get("resources");
    Map<String, Object> web = (Map<String, Object>) resources.get(1);
    Map<String, Object> second = (Map<String, Object>) ((List<Object>) web.get("instances")).get(1);
    second.put("status", "broken");
    second.put("index_key", 1.5);
    ((Map<String, Object>) resources.get(2)).put("mode", "resource");

    Outcome outcome = DocumentDecider.push(doc, WorkspaceState.EMPTY, false, 0, 0);

    assertThat(outcome.rejection()).isEqualTo(Rejection.INVALID);
    assertThat(outcome.events()).isEmpty();
    assertThat(outcome.problems())
        .anySatisfy(p -> assertThat(p).startsWith("$.version: must be 4"))
        .anySatisfy(p -> assertThat(p).startsWith("$.lineage: must be a non-empty string"))
        .anySatisfy(p -> assertThat(p).startsWith("$.resources[1].instances[1].status:"))
        .anySatisfy(p -> assertThat(p).startsWith("$.resources[1].instances[1].index_key:"))
        .anySatisfy(p -> assertThat(p).startsWith("$.resources[2].mode:"));
  }

  @Test
  void rejectsAStateThatIsNotAnObjectOrLacksResources() {
    assertThat(TerraformStateValidator.validate(List.of()))
        .containsExactly("$: a Terraform state must be a JSON object");
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", 4);
    doc.put("terraform_version", "1.9.8");
    doc.put("serial", 1);
    doc.put("lineage", "l");
    assertThat(TerraformStateValidator.validate(doc))
        .singleElement()
        .asString()
        .startsWith("$.resources: must be a list");
  }

  @Test
  void refusesALowerSerialOrAnotherLineageUnlessForcedAndBumpsAForcedSerial() throws IOException {
    WorkspaceState current =
        foldStored(
            WorkspaceState.EMPTY,
            DocumentDecider.push(realistic(), WorkspaceState.EMPTY, false, 0, 0).events());
    Map<String, Object> older = realistic();
    older.put("serial", 16);
    Map<String, Object> other = realistic();
    other.put("lineage", "another-lineage");
    other.put("serial", 30);

    assertThat(DocumentDecider.push(older, current, false, 0, 0).rejection())
        .isEqualTo(Rejection.SERIAL_BACKWARDS);
    assertThat(DocumentDecider.push(other, current, false, 0, 0).rejection())
        .isEqualTo(Rejection.LINEAGE_MISMATCH);
    Outcome forced = DocumentDecider.push(older, current, true, 0, 0);
    assertThat(forced.accepted()).isTrue();
    assertThat(forced.serial()).isEqualTo(18);
    assertThat(DocumentDecider.push(other, current, true, 0, 0).serial()).isEqualTo(30);
  }

  @Test
  void aRetriedUploadOfTheSameSerialAndContentWritesNothingButChangedContentIsRefused()
      throws IOException {
    WorkspaceState current =
        foldStored(
            WorkspaceState.EMPTY,
            DocumentDecider.push(realistic(), WorkspaceState.EMPTY, false, 0, 0).events());

    Outcome same = DocumentDecider.push(realistic(), current, false, 0, 0);
    Map<String, Object> changed = realistic();
    changed.put("check_results", List.of());

    assertThat(same.accepted()).isTrue();
    assertThat(same.events()).isEmpty();
    assertThat(DocumentDecider.push(changed, current, false, 0, 0).rejection())
        .isEqualTo(Rejection.SERIAL_UNCHANGED);
  }

  @Test
  void rejectsADocumentChangeWithAStaleFencingToken() throws IOException {
    assertThat(DocumentDecider.push(realistic(), WorkspaceState.EMPTY, false, 3, 4).rejection())
        .isEqualTo(Rejection.STALE_FENCING_TOKEN);
    assertThat(DocumentDecider.delete(WorkspaceState.EMPTY, 3, 4, "x").rejection())
        .isEqualTo(Rejection.STALE_FENCING_TOKEN);
  }

  @Test
  void aRollbackWritesTheOldVersionWithTheNextSerial() throws IOException {
    WorkspaceState v17 =
        foldStored(
            WorkspaceState.EMPTY,
            DocumentDecider.push(realistic(), WorkspaceState.EMPTY, false, 0, 0).events());
    WorkspaceState v18 =
        v17.apply(new StateEvent.InstanceRemoved(WEB_1, StateEvent.RemoveKind.DELETED));

    Outcome rollback =
        DocumentDecider.rollback(TerraformStateV4.render(v17, v17.lineage()), 17, v18, 0, 0);
    WorkspaceState v19 = foldStored(v18, rollback.events());

    assertThat(v19.serial()).isEqualTo(19);
    assertThat(v19.instances()).containsKey(WEB_1);
    Map<String, Object> expected = realistic();
    expected.put("serial", 19);
    assertThat(DocumentDecider.sameJson(TerraformStateV4.render(v19, null), expected)).isTrue();
    assertThat(rollback.events().get(0).typeName()).isEqualTo("state_rolled_back");
  }

  @Test
  void aDeletedStateReadsAsEmptyAndKeepsItsSerial() throws IOException {
    WorkspaceState pushed =
        foldStored(
            WorkspaceState.EMPTY,
            DocumentDecider.push(realistic(), WorkspaceState.EMPTY, false, 0, 0).events());

    WorkspaceState deleted =
        foldStored(pushed, DocumentDecider.delete(pushed, 0, 0, "terraform").events());

    assertThat(deleted.isEmpty()).isTrue();
    assertThat(deleted.instances()).isEmpty();
    assertThat(deleted.serial()).isEqualTo(17);
  }

  @Test
  @SuppressWarnings("unchecked")
  void aDiffNamesChangedInstancesAndAttributesButNeverShowsSensitiveValues() throws IOException {
    Map<String, Object> before = realistic();
    Map<String, Object> after = realistic();
    after.put("serial", 18);
    List<Object> resources = new ArrayList<>((List<Object>) after.get("resources"));
    Map<String, Object> db = (Map<String, Object>) resources.get(3);
    Map<String, Object> dbInstance =
        (Map<String, Object>) ((List<Object>) db.get("instances")).get(0);
    Map<String, Object> attributes =
        new LinkedHashMap<>((Map<String, Object>) dbInstance.get("attributes"));
    attributes.put("password", "n3w-s3cr3t");
    attributes.put("allocated_storage", 40);
    dbInstance.put("attributes", attributes);
    resources.remove(2); // aws_security_group.web
    after.put("resources", resources);
    Map<String, Object> outputs = new LinkedHashMap<>((Map<String, Object>) after.get("outputs"));
    outputs.put("db_password", Map.of("value", "n3w-s3cr3t", "type", "string", "sensitive", true));
    after.put("outputs", outputs);

    Map<String, Object> diff = StateDiff.between(before, after);
    String text = JSON.writeValueAsString(diff);

    assertThat(text).doesNotContain("s3cr3t");
    List<Map<String, Object>> instances = (List<Map<String, Object>>) diff.get("instances");
    assertThat(instances)
        .extracting(i -> i.get("address") + " " + i.get("change"))
        .containsExactly(
            "aws_security_group.web removed", "module.db.aws_db_instance.main changed");
    List<Map<String, Object>> changed =
        (List<Map<String, Object>>) instances.get(1).get("attributes");
    assertThat(changed)
        .extracting(a -> a.get("name") + "=" + a.get("before") + "->" + a.get("after"))
        .containsExactly(
            "allocated_storage=20->40", "password=(sensitive value)->(sensitive value)");
    assertThat((List<Map<String, Object>>) diff.get("outputs"))
        .singleElement()
        .satisfies(o -> assertThat(o.get("after")).isEqualTo(StateDiff.MASK));
  }
}
