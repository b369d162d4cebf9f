package dev.stagecraft.lock.adapter;

import dev.stagecraft.lock.adapter.db.LockStore;
import dev.stagecraft.lock.adapter.db.LockStore.UnpublishedExpiry;
import dev.stagecraft.lock.adapter.db.LockStore.UnpublishedForceRelease;
import dev.stagecraft.platform.kafka.EventPublisher;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.lock.LockForceUnlocked;
import dev.stagecraft.schemas.lock.LockLeaseExpired;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases locks whose lease ran out even when nobody asks for them, and publishes every recorded
 * expiry as {@code dev.stagecraft.lock.lease-expired} and every force-unlock as {@code
 * dev.stagecraft.lock.force-unlocked} on {@code stagecraft.lock-events} (the outbox relay).
 *
 * <p>Every {@code stagecraft.lock.sweep-interval} (default 250 ms) it records the expiry of each
 * overdue lease ({@link LockService#expireOverdue}) and then drains the outbox: audit rows of type
 * {@code expired} not yet published ({@link LockStore#publishExpiries}) — including expiries
 * recorded on the way by an acquire or a heartbeat. An expired lease is therefore recorded at most
 * one interval after its end, and its event is published once the broker takes it (at least once;
 * the envelope id {@code lock-lease-expired-<audit id>} is stable). Force-unlocks are relayed the
 * same way from their {@code force_released} audit rows (id {@code lock-force-unlocked-<audit id>},
 * subject the lock id the caller named). Without {@code stagecraft.kafka-bootstrap} nothing is
 * published (expiries are still recorded).
 *
 * <p>Concurrency: runs on Micronaut's scheduler, one round at a time per instance; several
 * instances may sweep at once (decisions are serialized per workspace by the database, outbox rows
 * are claimed with {@code SKIP LOCKED}).
 */
@Singleton
public final class LeaseExpirySweeper {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseExpirySweeper.class);
  static final String SOURCE = "lock-service";

  private final LockService locks;
  private final LockStore store;
  private final KafkaSettings kafka;
  private final EventCodec codec = EventCodec.forSource(SOURCE);
  private EventPublisher publisher;

  public LeaseExpirySweeper(
      LockService locks,
      LockStore store,
      @Value("${stagecraft.kafka-bootstrap:}") String bootstrap,
      @Value("${stagecraft.kafka-username:}") String kafkaUsername,
      @Value("${stagecraft.kafka-password:}") String kafkaPassword,
      @Value("${stagecraft.kafka-security-protocol:}") String kafkaSecurityProtocol) {
    this.locks = locks;
    this.store = store;
    this.kafka =
        bootstrap == null || bootstrap.isBlank()
            ? null
            : KafkaSettings.of(bootstrap, kafkaUsername, kafkaPassword, kafkaSecurityProtocol);
  }

  @Scheduled(
      fixedDelay = "${stagecraft.lock.sweep-interval:250ms}",
      initialDelay = "${stagecraft.lock.sweep-interval:250ms}")
  void sweep() {
    try {
      locks.expireOverdue();
      if (kafka != null) {
        while (store.publishExpiries(100, this::publish) == 100) {
          // a full batch: more may be waiting
        }
        while (store.publishForceReleases(100, this::publish) == 100) {
          // a full batch: more may be waiting
        }
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("lease expiry sweep failed (retried next round): {}", e.toString());
    }
  }

  private void publish(UnpublishedExpiry expiry) {
    publisher()
        .publish(
            codec.wrapWithId(
                "lock-lease-expired-" + expiry.id(),
                expiry.tenant(),
                expiry.workspace(),
                null,
                expiry.fencingToken(),
                expiry.lockId(),
                new LockLeaseExpired(
                    expiry.lockId(), expiry.holder(), expiry.fencingToken(), expiry.at())));
  }

  private void publish(UnpublishedForceRelease forced) {
    publisher()
        .publish(
            codec.wrapWithId(
                "lock-force-unlocked-" + forced.id(),
                forced.tenant(),
                forced.workspace(),
                null,
                forced.fencingToken(),
                forced.clientLockId(),
                new LockForceUnlocked(
                    forced.clientLockId(),
                    forced.holder(),
                    forced.fencingToken(),
                    forced.actor(),
                    forced.reason(),
                    forced.via())));
  }

  private synchronized EventPublisher publisher() {
    if (publisher == null) {
      publisher = new EventPublisher(kafka, "lock-service-lock-events");
    }
    return publisher;
  }

  @PreDestroy
  synchronized void close() {
    if (publisher != null) {
      publisher.close();
    }
  }
}
