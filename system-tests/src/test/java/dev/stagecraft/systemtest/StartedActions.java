package dev.stagecraft.systemtest;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Which executor started which action of a workspace, read from {@code action.started} on {@code
 * stagecraft.action-events} as they come (a step's command cannot say: it sees nothing of the
 * executor that runs it).
 */
final class StartedActions implements AutoCloseable {
  private final Map<String, String> executorByAction = new ConcurrentHashMap<>();
  private final KafkaConsumer<String, byte[]> consumer;
  private final Thread poller;

  StartedActions(SharedStack stack, String workspace) {
    Properties p = stack.kafka("admin");
    p.put("group.id", "started-actions-" + UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(Topics.ACTION_EVENTS));
    poller =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try {
                    while (true) {
                      for (ConsumerRecord<String, byte[]> r :
                          consumer.poll(Duration.ofMillis(200))) {
                        EventEnvelope e = EventCodec.decode(r.value());
                        if (workspace.equals(e.workspace())
                            && "dev.stagecraft.action.started".equals(e.type())) {
                          executorByAction.put(
                              e.data().get("actionId").asText(),
                              e.data().get("executorId").asText());
                        }
                      }
                    }
                  } catch (WakeupException e) {
                    // closing
                  } finally {
                    consumer.close();
                  }
                });
  }

  /** How many actions of the workspace {@code executorId} started so far. */
  long by(String executorId) {
    return executorByAction.values().stream().filter(executorId::equals).count();
  }

  @Override
  public void close() throws InterruptedException {
    consumer.wakeup();
    poller.join(Duration.ofSeconds(10));
  }
}
