package dev.stagecraft.planner.service.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decisions a {@link RunTrigger} remembers in memory: never more than {@value
 * RunTrigger#REMEMBERED_DECISIONS}, a recent one answered again without reading the records, a
 * forgotten one answered from the records.
 */
class RunTriggerDecisionMemoryTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  final AtomicInteger recordReads = new AtomicInteger();

  @TempDir Path uploads;
  RunCoordinator coordinator;
  RunTrigger trigger;

  /**
   * A coordinator with no runs, never asked: every decision sent here was taken already, as its
   * records say.
   */
  @BeforeEach
  void start() {
    coordinator =
        new RunCoordinator(
            null,
            null,
            events -> {},
            EventCodec.forSource("/test"),
            clock,
            () -> "id",
            new UploadedFiles(uploads));
    trigger =
        new RunTrigger(
                coordinator,
                new TriggerSecrets() {
                  @Override
                  public List<String> verifying(String tenant) {
                    return List.of("sct_acme");
                  }

                  @Override
                  public Issued rotate(String tenant) {
                    throw new UnsupportedOperationException();
                  }
                },
                new EventSchemaValidator(),
                clock)
            .withDecisionRecords(
                new RunTrigger.DecisionRecords() {
                  @Override
                  public Optional<RunTrigger.Decided> find(
                      String tenant, String source, String eventId) {
                    recordReads.incrementAndGet();
                    return Optional.of(decided(eventId));
                  }

                  @Override
                  public void record(String source, RunTrigger.Decided decided) {}
                });
  }

  @AfterEach
  void stop() {
    coordinator.close();
  }

  static RunTrigger.Decided decided(String eventId) {
    return new RunTrigger.Decided("acme", eventId, "run-" + eventId, "approve", "applied", null);
  }

  RunTrigger.Outcome send(String eventId) {
    byte[] body =
        """
        {"specversion":"1.0","id":"%s","source":"/bots/slack",\
        "type":"dev.stagecraft.run.decision-requested","tenant":"acme",\
        "data":{"run_id":"run-%s","decision":"approve","requested_by":"alice"}}
        """
            .formatted(eventId, eventId)
            .getBytes(StandardCharsets.UTF_8);
    long at = clock.instant().getEpochSecond();
    return trigger.handle(
        body, Long.toString(at), TriggerSignature.sign("sct_acme", at, body), null, null);
  }

  @Test
  void remembersAtMostItsBoundAndARecentDecisionWithoutReadingTheRecords() {
    int events = RunTrigger.REMEMBERED_DECISIONS + 1_000;
    for (int i = 0; i < events; i++) {
      assertThat(send("evt-" + i)).isEqualTo(decided("evt-" + i));
    }
    assertThat(recordReads).hasValue(events);

    recordReads.set(0);
    for (int i = events - 50; i < events; i++) {
      assertThat(send("evt-" + i)).as("a recent decision again").isEqualTo(decided("evt-" + i));
    }
    assertThat(recordReads).as("answered from memory").hasValue(0);

    for (int i = 0; i < events; i++) {
      assertThat(send("evt-" + i)).isEqualTo(decided("evt-" + i));
    }
    assertThat(recordReads.get())
        .as("at most %d remembered: the others were read from the records", events - 1_000)
        .isGreaterThanOrEqualTo(1_000);
  }
}
