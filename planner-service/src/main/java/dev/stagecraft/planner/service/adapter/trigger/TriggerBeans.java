package dev.stagecraft.planner.service.adapter.trigger;

import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.planner.service.adapter.PlannerInstances;
import dev.stagecraft.planner.service.adapter.PlannerSettings;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.RunDecisionStore;
import dev.stagecraft.planner.service.adapter.db.RunRequestKeyStore;
import dev.stagecraft.planner.service.adapter.http.ForwardedDecisions;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.intake.RunIntake;
import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.SigningTenant;
import dev.stagecraft.planner.service.trigger.TriggerSignature;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.EventSchemaValidator;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires run triggers (docs/chatops.md): the trigger secrets (a compacted topic, read in full before
 * the planner serves), the idempotency keys (the planner's database), the {@link RunTrigger}, and
 * the listener of {@code stagecraft.run-requests}.
 */
@Factory
public class TriggerBeans {
  private static final Logger LOG = LoggerFactory.getLogger(TriggerBeans.class);
  private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(60);

  @Singleton
  @Bean(preDestroy = "close")
  KafkaTriggerSecrets triggerSecrets(
      KafkaSettings kafka,
      PlannerSettings settings,
      EventPublisher publisher,
      SecretsKeyring keyring,
      @Value("${stagecraft.trigger.secret-grace:24h}") Duration grace) {
    return new KafkaTriggerSecrets(
        new CompactedTopicView(
                kafka, Topics.TRIGGER_SECRETS, settings.getInstanceId() + "-secrets", publisher)
            .start(LOAD_TIMEOUT),
        keyring,
        Clock.systemUTC(),
        grace);
  }

  @Singleton
  RunTrigger runTrigger(
      RunCoordinator coordinator,
      KafkaTriggerSecrets secrets,
      HikariDataSource dataSource,
      ConfigurationVersionStore versions,
      RunIntake intake,
      ForwardedDecisions decisions,
      PlannerInstances instances,
      @Value("${stagecraft.trigger.webhook-tolerance:5m}") Duration tolerance) {
    // the incarnation is registered (PlannerInstances registers at creation) before any key is
    // recorded under its name: a key's recorder is alive or dead by planner.instances
    coordinator.withIdempotencyKeys(
        new RunRequestKeyStore(
            dataSource, Clock.systemUTC(), instances.instanceId(), instances.incarnation()));
    return new RunTrigger(
            coordinator,
            secrets,
            new EventSchemaValidator(),
            Clock.systemUTC(),
            (tenant, id) -> {
              try {
                return versions
                    .find(tenant, id)
                    .map(ConfigurationVersionStore.StoredVersion::content);
              } catch (SQLException e) {
                throw new IllegalStateException(
                    "could not read configuration version " + id + ": " + e.getMessage(), e);
              }
            })
        .withIntake(intake)
        .withDecisions(decisions, tolerance)
        .withDecisionRecords(new RunDecisionStore(dataSource, Clock.systemUTC()));
  }

  /**
   * Reads {@code stagecraft.run-requests} in one consumer group shared by all planner instances,
   * from the earliest offset (a request sent while no planner ran is handled when one starts). A
   * refused trigger goes to {@code stagecraft.dead-letter} with the reason; the loop keeps going. A
   * decision the planner instance driving its run could not be asked about is retried.
   */
  @Context
  static final class RunRequestListener {
    static final String GROUP = Topics.RUN_REQUESTS_GROUP;
    private final EventConsumer consumer;

    RunRequestListener(
        KafkaSettings kafka,
        PlannerSettings settings,
        EventPublisher publisher,
        RunTrigger trigger,
        @Value("${stagecraft.planner.session-timeout:10s}") Duration sessionTimeout) {
      // the group is shared by every planner: a killed member holds up its rebalance until its
      // session times out (the client default, 45 s, kept a restarted planner from starting for
      // that long and every planner from taking triggers meanwhile)
      String clientId = settings.getInstanceId() + "-run-requests";
      this.consumer =
          EventConsumer.ofRecords(
                  kafka.consumer(GROUP, clientId, "earliest", sessionTimeout),
                  clientId,
                  List.of(Topics.RUN_REQUESTS),
                  publisher,
                  record -> handle(trigger, record))
              .start();
      try {
        if (!consumer.awaitAssignment(LOAD_TIMEOUT)) {
          // a rebalance waits for every member, a stopped one too (up to its poll interval):
          // starting anyway beats exiting and rejoining, which would start another rebalance
          LOG.warn(
              "Kafka did not assign run-request partitions in {} s (the group is rebalancing);"
                  + " starting anyway: triggers are consumed once they are assigned",
              LOAD_TIMEOUT.toSeconds());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while joining the run-requests group", e);
      }
    }

    private static void handle(RunTrigger trigger, ConsumerRecord<String, byte[]> record) {
      RunTrigger.Outcome outcome =
          trigger.handle(
              record.value(),
              header(record, SigningTenant.HEADER),
              header(record, TriggerSignature.TIMESTAMP_HEADER),
              header(record, TriggerSignature.SIGNATURE_HEADER),
              null,
              null);
      switch (outcome) {
        case RunTrigger.Refused r when r.kind() == RunTrigger.Refusal.UNAVAILABLE ->
            // the planner instance driving the run could not be asked: retried, not dead-lettered
            throw new IllegalStateException(r.reason());
        case RunTrigger.Refused r ->
            throw new EventCodec.MalformedEventException(
                r.kind().name().toLowerCase() + ": " + r.reason());
        case RunTrigger.Decided d ->
            LOG.info(
                "decision {} of tenant {}: {} run {}, now {}{}",
                d.eventId(),
                d.tenant(),
                d.decision(),
                d.runId(),
                d.status(),
                d.comment() == null ? "" : " (comment: " + printable(d.comment()) + ")");
        case RunTrigger.Accepted a ->
            LOG.info(
                "trigger {} of tenant {}: {} {}",
                a.eventId(),
                a.tenant(),
                a.start().duplicate() ? "duplicate of" : "started",
                a.start().runId());
      }
    }

    /**
     * A bot's free text as one log line: control characters (line breaks among them) become spaces,
     * so the text cannot forge further log lines.
     */
    static String printable(String text) {
      return text.replaceAll("\\p{Cntrl}", " ");
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
      Header h = record.headers().lastHeader(name);
      return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @PreDestroy
    void stop() {
      consumer.close();
    }
  }
}
