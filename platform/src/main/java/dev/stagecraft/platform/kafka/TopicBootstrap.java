package dev.stagecraft.platform.kafka;

import dev.stagecraft.schemas.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** Creates Stagecraft's topics when they are missing (idempotent; safe from every service). */
public final class TopicBootstrap {
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not create topics: " + e.getCause(), e.getCause());
    }
  }
}
