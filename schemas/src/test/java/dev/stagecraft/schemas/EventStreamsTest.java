package dev.stagecraft.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.schemas.action.ActionEvent;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.action.ActionHeartbeat;
import dev.stagecraft.schemas.action.ActionLog;
import dev.stagecraft.schemas.action.ActionStarted;
import dev.stagecraft.schemas.action.ActionStep;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.lock.LockEvent;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EventStreamsTest {

  @Test
  void eachTopicsSealedInterfacePermitsExactlyTheEventTypesOfThatTopic() {
    for (String topic : Topics.ALL) {
      Set<Class<?>> types =
          Arrays.stream(EventType.values())
              .filter(t -> t.topic().equals(topic))
              .map(EventType::dataClass)
              .collect(Collectors.toSet());
      if (types.isEmpty()) {
        assertThat(EventStreams.of(topic)).as(topic).isEmpty();
        continue;
      }
      Class<?> stream = EventStreams.of(topic).orElseThrow();
      assertThat(stream.isSealed()).as(stream.getName()).isTrue();
      assertThat(Set.of(stream.getPermittedSubclasses())).as(topic).isEqualTo(types);
    }
    assertThat(EventStreams.all().keySet()).isSubsetOf(Topics.ALL);
  }

  @Test
  void decodesTheActionEventsOfTheGoldenFilesForAnExhaustiveSwitch() throws IOException {
    List<String> seen = new ArrayList<>();
    for (EventType type : EventType.values()) {
      EventEnvelope envelope = golden(type);
      if (!type.topic().equals(Topics.ACTION_EVENTS)) {
        assertThatThrownBy(() -> EventCodec.event(envelope, ActionEvent.class))
            .isInstanceOf(EventCodec.MalformedEventException.class)
            .hasMessageContaining("is not a ActionEvent");
        continue;
      }
      ActionEvent event = EventCodec.event(envelope, ActionEvent.class);
      assertThat(event.runId()).isEqualTo(GoldenEvents.RUN);
      seen.add(
          switch (event) {
            case ActionStarted s -> "started on " + s.executorId();
            case ActionStep s -> "step " + s.index() + " " + s.status();
            case ActionHeartbeat h -> "heartbeat at step " + h.step();
            case ActionLog l -> "log " + l.stream();
            case ActionFinished f -> "finished " + f.outcome();
          });
    }
    assertThat(seen)
        .containsExactly(
            "started on executor-1",
            "log stderr",
            "step 1 failed",
            "heartbeat at step 1",
            "finished failed");
  }

  @Test
  void lockEventsShareTheLockTheyEnded() throws IOException {
    for (EventType type : List.of(EventType.LOCK_FORCE_UNLOCKED, EventType.LOCK_LEASE_EXPIRED)) {
      LockEvent event = EventCodec.event(golden(type), LockEvent.class);
      String what =
          switch (event) {
            case LockForceUnlocked f -> "forced by " + f.actor();
            case LockLeaseExpired e -> "expired at " + e.recordedAt();
          };
      assertThat(event.fencingToken()).as(what).isPositive();
    }
  }

  @Test
  void aStepStatusIsOneOfThreeOnTheWireAndAnyOtherIsMalformed() throws IOException {
    String json =
        Files.readString(GoldenEventsTest.DIR.resolve(EventType.ACTION_STEP.type() + ".json"));
    assertThat(json).contains("\"status\" : \"failed\"");
    ActionEvent step =
        EventCodec.event(
            EventCodec.decode(json.replace("\"failed\"", "\"succeeded\"").getBytes()),
            ActionEvent.class);
    assertThat(step)
        .isInstanceOfSatisfying(
            ActionStep.class, s -> assertThat(s.status()).isEqualTo(ActionStep.Status.SUCCEEDED));

    EventEnvelope skipped = EventCodec.decode(json.replace("\"failed\"", "\"skipped\"").getBytes());
    assertThatThrownBy(() -> EventCodec.event(skipped, ActionEvent.class))
        .isInstanceOf(EventCodec.MalformedEventException.class)
        .hasMessageContaining("unknown step status 'skipped'");
  }

  private static EventEnvelope golden(EventType type) throws IOException {
    return EventCodec.decode(
        Files.readAllBytes(GoldenEventsTest.DIR.resolve(type.type() + ".json")));
  }
}
