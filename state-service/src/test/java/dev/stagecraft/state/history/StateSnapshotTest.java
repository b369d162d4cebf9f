package dev.stagecraft.state.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.state.history.StateEvent.InstanceRemoved;
import dev.stagecraft.state.history.StateEvent.InstanceTaintChanged;
import dev.stagecraft.state.history.StateEvent.InstanceWritten;
import dev.stagecraft.state.history.StateEvent.LineageAssigned;
import dev.stagecraft.state.history.StateEvent.RemoveKind;
import dev.stagecraft.state.history.StateEvent.WriteKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A snapshot of the fold of a prefix, folded on with the rest of the events, is the fold of all
 * events: checked over many random event sequences and split points (seeded, so a failure names its
 * seed and reproduces).
 */
class StateSnapshotTest {
  private static final int RUNS = 500;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void foldingOnFromASnapshotOfAPrefixEqualsTheFullFold() {
    assertRoundTripOverRandomHistories(StateSnapshotTest::unchanged);
  }

  @Test
  void foldingOnFromASnapshotThatWentThroughJsonEqualsTheFullFold() {
    // what the store does: snapshot → JSON text → plain maps (the values are JSON-natural types)
    assertRoundTripOverRandomHistories(StateSnapshotTest::throughJson);
  }

  @Test
  void snapshotKeepsEveryFieldOfEveryInstance() {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("z", 1);
    attributes.put("a", null);
    attributes.put("nested", Map.of("list", List.of(1L << 40, 2.5, true, "x")));
    WorkspaceState state =
        WorkspaceState.fold(
            List.of(
                new LineageAssigned("lineage-1"),
                new InstanceWritten(
                    "stateful_provisioning.app[\"k\"]",
                    null,
                    attributes,
                    List.of("stateful_provisioning.db", "module.m.stateful_provisioning.x"),
                    true,
                    WriteKind.TAINTED,
                    true,
                    false),
                new InstanceWritten(
                    "stateful_provisioning.db",
                    "stateful_provisioning",
                    Map.of(),
                    List.of(),
                    false,
                    WriteKind.CREATED,
                    false,
                    true)));

    WorkspaceState restored = StateSnapshot.fromSnapshot(StateSnapshot.toSnapshot(state));

    assertThat(restored).isEqualTo(state);
    assertThat(restored.serial()).isEqualTo(2);
    assertThat(restored.lineage()).isEqualTo("lineage-1");
    InstanceState app = restored.instances().get("stateful_provisioning.app[\"k\"]");
    assertThat(app.tainted()).isTrue();
    assertThat(app.createBeforeDestroy()).isTrue();
    assertThat(app.skipDestroy()).isFalse();
    InstanceState db = restored.instances().get("stateful_provisioning.db");
    assertThat(db.createBeforeDestroy()).isFalse();
    assertThat(db.skipDestroy()).isTrue();
    assertThat(app.resourceType()).isNull();
    assertThat(app.attributes().keySet()).containsExactly("z", "a", "nested");
    assertThat(app.dependencies())
        .containsExactly("stateful_provisioning.db", "module.m.stateful_provisioning.x");
  }

  @Test
  void emptyStateRoundTripsWithoutLineage() {
    assertThat(StateSnapshot.fromSnapshot(StateSnapshot.toSnapshot(WorkspaceState.EMPTY)))
        .isEqualTo(WorkspaceState.EMPTY);
  }

  @Test
  void refusesASnapshotOfAnotherFormat() {
    Map<String, Object> snapshot =
        new LinkedHashMap<>(StateSnapshot.toSnapshot(WorkspaceState.EMPTY));
    snapshot.put("format", StateSnapshot.FORMAT + 1);

    assertThatThrownBy(() -> StateSnapshot.fromSnapshot(snapshot))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format");
  }

  @Test
  void refusesAFormatOneSnapshotWhichHasNoLifecycleFlags() {
    Map<String, Object> snapshot = new LinkedHashMap<>();
    snapshot.put("format", 1);
    snapshot.put("serial", 1);
    snapshot.put("lineage", "l");
    snapshot.put("instances", List.of());

    assertThatThrownBy(() -> StateSnapshot.fromSnapshot(snapshot))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format 1");
  }

  @Test
  void aFormatThreeSnapshotIsReadWithThePushedDocumentsOutputs() {
    Map<String, Object> output = new LinkedHashMap<>();
    output.put("value", "vpc-1");
    output.put("type", "string");
    Map<String, Object> top = new LinkedHashMap<>();
    top.put("version", 4);
    top.put("terraform_version", "1.9.0");
    top.put("outputs", Map.of("vpc_id", output));
    Map<String, Object> extras = new LinkedHashMap<>();
    extras.put("top", top);
    extras.put("resources", List.of());
    extras.put("instances", Map.of());
    Map<String, Object> snapshot = new LinkedHashMap<>();
    snapshot.put("format", 3);
    snapshot.put("serial", 4);
    snapshot.put("lineage", "l");
    snapshot.put("instances", List.of());
    snapshot.put("extras", extras);

    WorkspaceState state = StateSnapshot.fromSnapshot(snapshot);

    assertThat(state.outputs()).isEqualTo(Map.of("vpc_id", output));
    assertThat(TerraformStateV4.render(state, "l").get("outputs"))
        .isEqualTo(Map.of("vpc_id", output));
    // written again in the current format, the outputs are kept apart from the pushed fields
    assertThat(StateSnapshot.fromSnapshot(StateSnapshot.toSnapshot(state))).isEqualTo(state);
  }

  // --- generators ---------------------------------------------------------------------------

  private static void assertRoundTripOverRandomHistories(
      UnaryOperator<Map<String, Object>> transport) {
    for (long seed = 0; seed < RUNS; seed++) {
      Random random = new Random(seed);
      List<StateEvent> events = randomHistory(random);
      int split = random.nextInt(events.size() + 1);
      WorkspaceState prefix = WorkspaceState.fold(events.subList(0, split));

      WorkspaceState state =
          StateSnapshot.fromSnapshot(transport.apply(StateSnapshot.toSnapshot(prefix)));
      assertThat(state).as("seed %d, snapshot after %d events", seed, split).isEqualTo(prefix);
      for (StateEvent event : events.subList(split, events.size())) {
        state = state.apply(event);
      }

      assertThat(state)
          .as("seed %d, snapshot after %d of %d events", seed, split, events.size())
          .isEqualTo(WorkspaceState.fold(events));
    }
  }

  private static List<StateEvent> randomHistory(Random random) {
    List<StateEvent> events = new ArrayList<>();
    int length = random.nextInt(60);
    if (length > 0) {
      events.add(new LineageAssigned("lineage-" + random.nextInt(1000)));
    }
    for (int i = 1; i < length; i++) {
      String address = "stateful_provisioning.app[" + random.nextInt(8) + "]";
      int kind = random.nextInt(10);
      if (kind < 2) {
        events.add(
            new InstanceRemoved(
                address, random.nextBoolean() ? RemoveKind.DELETED : RemoveKind.FORGOTTEN));
      } else if (kind < 4) {
        events.add(new InstanceTaintChanged(address, random.nextBoolean()));
      } else if (kind < 5) {
        Map<String, Object> outputs = new LinkedHashMap<>();
        for (int o = random.nextInt(3); o > 0; o--) {
          Map<String, Object> output = new LinkedHashMap<>();
          output.put("value", randomValue(random, 1));
          output.put("type", "dynamic");
          output.put("sensitive", random.nextBoolean());
          outputs.put("out" + random.nextInt(5), output);
        }
        events.add(new StateEvent.OutputsWritten(outputs));
      } else {
        List<String> dependencies = new ArrayList<>();
        for (int d = random.nextInt(3); d > 0; d--) {
          dependencies.add("stateful_provisioning.db" + random.nextInt(5));
        }
        events.add(
            new InstanceWritten(
                address,
                random.nextInt(5) == 0 ? null : "stateful_provisioning",
                randomObject(random, 0),
                dependencies,
                random.nextBoolean(),
                WriteKind.values()[random.nextInt(WriteKind.values().length)],
                random.nextBoolean(),
                random.nextBoolean()));
      }
    }
    return events;
  }

  /** A JSON object whose values have the types Jackson reads JSON into. */
  private static Map<String, Object> randomObject(Random random, int depth) {
    Map<String, Object> object = new LinkedHashMap<>();
    for (int i = random.nextInt(5); i > 0; i--) {
      object.put("k" + random.nextInt(100), randomValue(random, depth + 1));
    }
    return object;
  }

  private static Object randomValue(Random random, int depth) {
    int kind = random.nextInt(depth > 2 ? 6 : 8);
    return switch (kind) {
      case 0 -> null;
      case 1 -> random.nextBoolean();
      case 2 -> random.nextInt();
      case 3 -> Long.MAX_VALUE - random.nextInt(1000);
      case 4 -> random.nextDouble() * 1e6;
      case 5 -> "s" + random.nextInt(1000) + (random.nextBoolean() ? "\"\n\u00e9" : "");
      case 6 -> randomObject(random, depth);
      default -> {
        List<Object> list = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          list.add(randomValue(random, depth + 1));
        }
        yield list;
      }
    };
  }

  private static Map<String, Object> unchanged(Map<String, Object> snapshot) {
    return snapshot;
  }

  private static Map<String, Object> throughJson(Map<String, Object> snapshot) {
    try {
      return JSON.readValue(JSON.writeValueAsString(snapshot), new TypeReference<>() {});
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
