package dev.stagecraft.planner.service.adapter;

import dev.stagecraft.planner.service.adapter.clients.HttpKnownHosts;
import dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceLocks;
import dev.stagecraft.planner.service.adapter.clients.HttpWorkspaceStates;
import dev.stagecraft.planner.service.adapter.clients.InternalApis;
import dev.stagecraft.planner.service.adapter.clients.TokenVerifier;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunRequestStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.EventOutbox;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.run.admission.TenantAdmission;
import dev.stagecraft.planner.service.run.recovery.InstanceTainter;
import dev.stagecraft.platform.auth.CredentialNeeds;
import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.platform.secrets.SecretsSetting;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.servicekit.health.BrokerHealth;
import dev.stagecraft.servicekit.http.Names;
import dev.stagecraft.servicekit.http.ServiceAuth;
import dev.stagecraft.servicekit.metrics.ConsumerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.env.Environment;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * Wires the planner: Kafka publisher and listeners, the HTTP clients of the lock and state
 * services, the run coordinator and the instance tainter. Shutdown order: listeners, coordinator,
 * then the producer.
 */
@Factory
public class PlannerBeans {

  @Singleton
  KafkaSettings kafkaSettings(PlannerSettings settings) {
    return KafkaSettings.of(
        settings.getKafka(),
        settings.getKafkaUsername(),
        settings.getKafkaPassword(),
        settings.getKafkaSecurityProtocol());
  }

  @Singleton
  @Bean(preDestroy = "close")
  EventPublisher eventPublisher(KafkaSettings kafka, PlannerSettings settings) {
    // the planner uses every topic; it creates none on a secured broker (docs/operations.md)
    TopicBootstrap.ensureTopics(kafka, TopicBootstrap.allTopics(), 4, (short) 1);
    return new EventPublisher(kafka, settings.getInstanceId());
  }

  /**
   * The state and lock services' internal APIs with the planner's token. Created at start, so that
   * a missing or stray service token stops the planner at once.
   */
  @Context
  InternalApis internalApis(PlannerSettings settings, Environment config) {
    return new InternalApis(
            settings.getStateUrl(),
            settings.getLockUrl(),
            ServiceAuth.credentials(CredentialNeeds.PLANNER_SERVICE, config))
        .withPublicStateUrl(settings.getPublicStateUrl());
  }

  @Singleton
  TokenVerifier tokenVerifier(InternalApis apis) {
    return new TokenVerifier(apis.state(), Clock.systemUTC());
  }

  @Singleton
  HttpKnownHosts knownHosts(InternalApis apis) {
    return new HttpKnownHosts(apis.state());
  }

  @Singleton
  InstanceTainter instanceTainter(InternalApis apis) {
    return new InstanceTainter(
        new HttpWorkspaceLocks(apis.lock()), new HttpWorkspaceStates(apis.state()), randomIds());
  }

  /** {@code STAGECRAFT_METRICS_TENANTS}: tenant names separated by commas; blank for none. */
  static Set<String> tenantNames(String list) {
    Set<String> names = new LinkedHashSet<>();
    for (String name : list.split(",")) {
      if (!name.isBlank()) {
        names.add(Names.check("STAGECRAFT_METRICS_TENANTS: tenant", name.strip()));
      }
    }
    return names;
  }

  /** Random 16-hex-digit ids (run ids, lock holders). */
  private static Supplier<String> randomIds() {
    SecureRandom random = new SecureRandom();
    return () -> {
      byte[] bytes = new byte[8];
      random.nextBytes(bytes);
      return HexFormat.of().formatHex(bytes);
    };
  }

  /**
   * The keys that seal dispatched actions ({@code STAGECRAFT_SECRETS_KEYS}). Without any the
   * planner starts only when {@code STAGECRAFT_SECRETS_REQUIRED} is not true, warns loudly and says
   * so on {@code /health}.
   */
  @Singleton
  SecretsKeyring secretsKeyring(
      @Value("${stagecraft.secrets-keys:}") String keys,
      @Value("${stagecraft.secrets-required:false}") boolean required) {
    return SecretsSetting.keyring(keys, required, "planner");
  }

  @Singleton
  @Bean(preDestroy = "close")
  RunCoordinator runCoordinator(
      PlannerSettings settings,
      InternalApis apis,
      EventPublisher publisher,
      SecretsKeyring secrets,
      RunStore runStore,
      MeterRegistry meters,
      RunJournalStore runJournal,
      RunRequestStore runRequests,
      PlannerInstances instances,
      @Value("${stagecraft.planner.approval-timeout:1h}") Duration approvalTimeout,
      @Value("${stagecraft.planner.action-lease:15s}") Duration actionLease,
      @Value("${stagecraft.planner.dispatch-lease:10m}") Duration dispatchLease,
      @Value("${stagecraft.planner.max-active-runs-per-tenant:4}") int perTenantCap,
      @Value("${stagecraft.planner.tenant-run-caps:}") String tenantCaps,
      @Value("${stagecraft.planner.max-active-runs:0}") int overallLimit,
      @Value("${stagecraft.planner.ended-run-retention:2m}") Duration endedRunRetention,
      @Value("${stagecraft.metrics.tenants:}") String metricsTenants) {
    if (actionLease.isNegative() || actionLease.isZero()) {
      throw new IllegalArgumentException(
          "STAGECRAFT_PLANNER_ACTION_LEASE must be positive (e.g. 15s), got " + actionLease);
    }
    // check a few times per lease, so an interruption is reported within about 1.2 leases
    Duration checkEvery =
        Duration.ofMillis(Math.max(200, Math.min(1000, actionLease.toMillis() / 5)));
    // one trace per run (docs/adr/0083): the root's traceparent is recorded with the run
    RunTraces traces = new RunTraces(id -> recordedTraceParent(runStore, id));
    runStore.withTraceParents(traces::traceParent);
    return new RunCoordinator(
            new HttpWorkspaceLocks(apis.lock()).withRunTraces(traces::root),
            new HttpWorkspaceStates(apis.state(), apis.ownStateAddresses()),
            new EventOutbox() {
              @Override
              public void publishAll(List<EventOutbox.Keyed> events) {
                instances.checkLease();
                publishBatch(publisher, events);
              }

              @Override
              public void send(EventEnvelope envelope, String key) {
                instances.checkLease();
                // the idempotent producer keeps the order per key; the run does not wait for the
                // broker, the producer's callback reports a failure (no thread per event)
                publisher.send(
                    envelope,
                    key,
                    e ->
                        LoggerFactory.getLogger(PlannerBeans.class)
                            .warn(
                                "could not publish {} of run {}: {}",
                                envelope.type(),
                                envelope.runid(),
                                e.toString()));
              }
            },
            EventCodec.forSource("/stagecraft/planner-service"),
            Clock.systemUTC(),
            randomIds(),
            UploadedFiles.inTempDirectory(),
            secrets)
        .withLeases(actionLease, dispatchLease, checkEvery)
        .withAdmission(new TenantAdmission(perTenantCap, parseTenantCaps(tenantCaps), overallLimit))
        .withObserver(new RunMetrics(meters, tenantNames(metricsTenants), runStore))
        .withTracing(traces)
        .withRequestRecorder(runRequests)
        .withJournalRecorder(runJournal)
        .withApprovalTimeout(approvalTimeout)
        .withEndedRunRetention(endedRunRetention);
  }

  /** The traceparent recorded with a run; null when none or the records cannot be read. */
  private static String recordedTraceParent(RunStore runStore, String runId) {
    try {
      return runStore.traceParent(runId);
    } catch (SQLException e) {
      LoggerFactory.getLogger(PlannerBeans.class)
          .warn("could not read the trace of run {}: {}", runId, e.toString());
      return null;
    }
  }

  /**
   * Parses {@code STAGECRAFT_PLANNER_TENANT_RUN_CAPS}: {@code tenant=cap} pairs separated by commas
   * (e.g. {@code ci=8,sandbox=1}); blank for none.
   */
  static Map<String, Integer> parseTenantCaps(String setting) {
    Map<String, Integer> caps = new LinkedHashMap<>();
    if (setting == null || setting.isBlank()) {
      return caps;
    }
    for (String pair : setting.split(",")) {
      String[] parts = pair.trim().split("=", 2);
      try {
        if (parts.length != 2 || parts[0].isBlank()) {
          throw new NumberFormatException();
        }
        caps.put(parts[0].trim(), Integer.parseInt(parts[1].trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "STAGECRAFT_PLANNER_TENANT_RUN_CAPS: '"
                + pair.trim()
                + "' is not tenant=cap; write e.g. ci=8,sandbox=1");
      }
    }
    return caps;
  }

  /** Sends every event without waiting, then waits once until the broker committed them all. */
  static void publishBatch(EventPublisher publisher, List<EventOutbox.Keyed> events) {
    List<Future<?>> sent = new ArrayList<>();
    events.forEach(
        e ->
            sent.add(
                RunTraces.publishing(e.envelope(), () -> publisher.send(e.envelope(), e.key()))));
    for (Future<?> f : sent) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while publishing", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("could not publish: " + e.getCause(), e.getCause());
      }
    }
  }

  /** Readiness detail {@code broker}: DOWN while the planner's consumers reach no broker. */
  @Singleton
  BrokerHealth brokerHealth(Listeners listeners, @Named(TaskExecutors.IO) ExecutorService io) {
    return new BrokerHealth(listeners::lastOutage, Clock.systemUTC(), io);
  }

  /** Starts the listeners with the application (eagerly, not on first use). */
  @Context
  static final class Listeners {
    private final EventConsumer stateEvents;
    private final EventConsumer actionEvents;

    Listeners(
        KafkaSettings kafka,
        PlannerSettings settings,
        EventPublisher publisher,
        RunCoordinator coordinator,
        MeterRegistry meters) {
      // every planner instance sees every outcome and keeps those of its own runs; the groups are
      // this process's own and start at the latest offset, so they commit no offsets (a commit
      // per batch would be a broker round trip on the poll thread before the next event)
      String group =
          Topics.PLANNER_GROUP_PREFIX + settings.getInstanceId() + "-" + UUID.randomUUID();
      this.stateEvents =
          new EventConsumer(
                  kafka,
                  group + "-state",
                  settings.getInstanceId() + "-state",
                  "latest",
                  List.of(Topics.STATE_EVENTS),
                  publisher,
                  coordinator::onStateRecorded)
              .withoutOffsetCommits();
      ConsumerMeters.bind(stateEvents, "planner-state", meters).start();
      this.actionEvents =
          new EventConsumer(
                  kafka,
                  group + "-actions",
                  settings.getInstanceId() + "-actions",
                  "latest",
                  List.of(Topics.ACTION_EVENTS),
                  publisher,
                  coordinator::onActionEvent)
              .withoutOffsetCommits();
      ConsumerMeters.bind(actionEvents, "planner-actions", meters).start();
      // executors' heartbeats arrive through this consumer: its broker outages pause the leases
      coordinator.withBrokerOutages(actionEvents::lastOutage);
      try {
        if (!stateEvents.awaitAssignment(Duration.ofSeconds(60))
            || !actionEvents.awaitAssignment(Duration.ofSeconds(60))) {
          throw new IllegalStateException("Kafka did not assign partitions within 60 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while joining the consumer groups", e);
      }
    }

    /** The last instant the action-event consumer reached no broker (readiness {@code broker}). */
    Instant lastOutage() {
      return actionEvents.lastOutage();
    }

    @PreDestroy
    void stop() {
      stateEvents.close();
      actionEvents.close();
    }
  }
}
