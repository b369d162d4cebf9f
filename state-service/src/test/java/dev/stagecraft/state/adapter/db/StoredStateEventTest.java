package dev.stagecraft.state.adapter.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StateEvent.InstanceWritten;
import dev.stagecraft.state.history.StateEvent.WriteKind;
import dev.stagecraft.state.history.WorkspaceState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stored payload of state events: new fields read back, events stored before them fold. */
class StoredStateEventTest {

  @Test
  void instanceWrittenStoredBeforeTheLifecycleFlagsReadsThemFalse() {
    // the payload as versions without createBeforeDestroy/skipDestroy stored it
    String old =
        "{\"address\":\"stateful_provisioning.app\",\"resourceType\":\"stateful_provisioning\","
            + "\"attributes\":{\"id\":\"i-1\"},\"dependencies\":[],\"tainted\":false,"
            + "\"kind\":\"CREATED\"}";

    StateEvent event = StateStore.fromJson("instance_created", old);

    assertThat(event)
        .isEqualTo(
            new InstanceWritten(
                "stateful_provisioning.app",
                "stateful_provisioning",
                Map.of("id", "i-1"),
                List.of(),
                false,
                WriteKind.CREATED,
                false,
                false));
    assertThat(WorkspaceState.fold(List.of(event)).instances().get("stateful_provisioning.app"))
        .satisfies(i -> assertThat(i.createBeforeDestroy()).isFalse())
        .satisfies(i -> assertThat(i.skipDestroy()).isFalse());
  }

  @Test
  void lifecycleFlagsSurviveStorage() throws Exception {
    InstanceWritten written =
        new InstanceWritten(
            "stateful_provisioning.app",
            "stateful_provisioning",
            Map.of("id", "i-1"),
            List.of("stateful_provisioning.db"),
            false,
            WriteKind.REPLACED,
            true,
            true);

    String json = EventCodec.mapper().writeValueAsString(written);

    assertThat(json).contains("\"createBeforeDestroy\":true").contains("\"skipDestroy\":true");
    assertThat(StateStore.fromJson("instance_replaced", json)).isEqualTo(written);
  }
}
