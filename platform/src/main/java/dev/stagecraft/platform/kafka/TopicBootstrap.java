package dev.stagecraft.platform.kafka;

import dev.stagecraft.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Makes sure Stagecraft's topics exist before a service uses them, and returns only once every
 * partition of them answers from its leader.
 *
 * <p>Topics that are missing are created when the principal may create them (an administrator, or a
 * broker without authorization: the module tests' own brokers). A service's principal may not
 * (docs/operations.md "Kafka security"): on a secured broker the topics are created by an
 * administrator first (the dev stack, docker-compose's {@code kafka-init}), and a topic a service
 * needs that it cannot see then stops its start with an error naming the topics and the principal.
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

  /** Every Stagecraft topic: {@link Topics#ALL} and the dead-letter topic. */
  public static List<String> allTopics() {
    List<String> all = new ArrayList<>(Topics.ALL);
    all.add(EventConsumer.DEAD_LETTER_TOPIC);
    return List.copyOf(all);
  }

  /** Ensures {@link #allTopics()}: for an administrator (the dev stack) and tests. */
  public static void ensureTopics(KafkaSettings settings, int partitions, short replication) {
    ensureTopics(settings, allTopics(), partitions, replication);
  }

  /**
   * Ensures the topics a service uses ({@code topics}): creates the missing ones if the principal
   * may, then waits until every partition of them is led.
   *
   * @throws IllegalStateException when a topic is missing (or not visible to the principal) and the
   *     principal may not create it, when Kafka refuses the credentials, or when the partitions are
   *     not led within {@link #LEADERS_WITHIN}
   */
  public static void ensureTopics(
      KafkaSettings settings, Collection<String> topics, int partitions, short replication) {
    List<String> wanted = List.copyOf(new LinkedHashSet<>(topics));
    try (Admin admin = Admin.create(settings.client())) {
      Set<String> existing = admin.listTopics().names().get();
      List<NewTopic> missing = new ArrayList<>();
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
        create(admin, settings, missing);
      }
      awaitLeaders(admin, wanted);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthenticationException) {
        throw new IllegalStateException(
            "Kafka at "
                + settings.bootstrapServers()
                + " refused the credentials of principal '"
                + settings.principal()
                + "' ("
                + e.getCause().getMessage()
                + "). Check STAGECRAFT_KAFKA_USERNAME and STAGECRAFT_KAFKA_PASSWORD"
                + " (docs/operations.md \"Kafka security\").",
            e.getCause());
      }
      throw new IllegalStateException("could not create topics: " + e.getCause(), e.getCause());
    }
  }

  /** Creates {@code missing}; topics the principal may not create stop the start, named. */
  private static void create(Admin admin, KafkaSettings settings, List<NewTopic> missing)
      throws InterruptedException, ExecutionException {
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, KafkaFuture<Void>> created :
        admin.createTopics(missing).values().entrySet()) {
      try {
        created.getValue().get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TopicAuthorizationException
            || e.getCause() instanceof ClusterAuthorizationException) {
          refused.add(created.getKey());
        } else if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
    if (!refused.isEmpty()) {
      throw new IllegalStateException(
          "Kafka topics "
              + refused
              + " do not exist or are not visible to principal '"
              + settings.principal()
              + "' at "
              + settings.bootstrapServers()
              + ", and '"
              + settings.principal()
              + "' may not create them. Create them as an administrator first (the dev stack and"
              + " docker-compose's kafka-init do) and grant '"
              + settings.principal()
              + "' its ACLs (docs/operations.md \"Kafka security\").");
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
