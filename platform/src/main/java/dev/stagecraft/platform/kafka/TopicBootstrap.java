package dev.stagecraft.platform.kafka;

import dev.stagecraft.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Creates Stagecraft's topics when they are missing (idempotent; safe from every service), and
 * returns only once every partition of them answers from its leader.
 *
 * <p>A broker leads a new partition a moment after the topic is created. A producer that writes in
 * that moment gets NOT_LEADER_OR_FOLLOWER; an idempotent producer's batches behind the first then
 * fail OUT_OF_ORDER_SEQUENCE_NUMBER and are retried until the delivery timeout, and a record was
 * once lost that way. Asking each partition's leader for its latest offset is what a write needs
 * too, and writes nothing.
 */
public final class TopicBootstrap {
  /** How long the partitions may take to be led before start-up fails. */
  static final Duration LEADERS_WITHIN = Duration.ofSeconds(60);

  private static final long RETRY_AFTER_MS = 50;

  private TopicBootstrap() {}

  public static void ensureTopics(KafkaSettings settings, int partitions, short replication) {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers()))) {
      Set<String> existing = admin.listTopics().names().get();
      List<NewTopic> missing = new ArrayList<>();
      List<String> wanted = new ArrayList<>(Topics.ALL);
      wanted.add(EventConsumer.DEAD_LETTER_TOPIC);
      for (String topic : wanted) {
        if (!existing.contains(topic)) {
          NewTopic created = new NewTopic(topic, partitions, replication);
          if (Topics.COMPACTED.contains(topic)) {
            // the latest value per key is the record: older ones may go, the latest never
            created.configs(Map.of("cleanup.policy", "compact"));
          }
          missing.add(created);
        }
      }
      if (!missing.isEmpty()) {
        try {
          admin.createTopics(missing).all().get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
            throw e;
          }
        }
      }
      awaitLeaders(admin, wanted);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not create topics: " + e.getCause(), e.getCause());
    }
  }

  private static void awaitLeaders(Admin admin, List<String> topics)
      throws InterruptedException, ExecutionException {
    long deadline = System.nanoTime() + LEADERS_WITHIN.toNanos();
    while (true) {
      try {
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        for (TopicDescription topic : admin.describeTopics(topics).allTopicNames().get().values()) {
          for (TopicPartitionInfo p : topic.partitions()) {
            partitions.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest());
          }
        }
        admin.listOffsets(partitions).all().get();
        return;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the partitions of "
                  + topics
                  + " were not all led by a broker within "
                  + LEADERS_WITHIN.toSeconds()
                  + " s: "
                  + e.getCause()
                  + ". Check that the brokers at the bootstrap servers are up.",
              e.getCause());
        }
        Thread.sleep(RETRY_AFTER_MS);
      }
    }
  }
}
