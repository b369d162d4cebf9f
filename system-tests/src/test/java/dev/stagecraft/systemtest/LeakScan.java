package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Reads back everything a stack wrote, for the tests that scan it for secrets: every record of
 * every {@code stagecraft.*} topic (dead letters included), every row of every table, every service
 * log; and where a value appears in a text, in clear or in base64.
 */
final class LeakScan {
  private LeakScan() {}

  /** Where {@code text} holds {@code value} in clear or in base64 (standard or URL-safe). */
  static List<String> occurrences(String where, String text, String what, String value) {
    List<String> out = new ArrayList<>();
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    String b64 = Base64.getEncoder().encodeToString(bytes);
    String b64Url = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    if (text.contains(value)) {
      out.add(where + ": " + what + " in clear text");
    }
    if (text.contains(b64.substring(0, b64.length() - 4))
        || text.contains(b64Url.substring(0, b64Url.length() - 4))) {
      out.add(where + ": " + what + " in base64");
    }
    return out;
  }

  /** Every service log file of the stack, by name ({@code log NAME}). */
  static Map<String, String> serviceLogs(SharedStack stack) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    try (Stream<Path> logs = Files.walk(stack.dataDir.resolve("logs"))) {
      for (Path log : logs.filter(Files::isRegularFile).toList()) {
        out.put("log " + log.getFileName(), Files.readString(log));
      }
    }
    return out;
  }

  /** Every record (key, value, headers) of every stagecraft.* topic, from the beginning. */
  static List<String> kafkaRecords(SharedStack stack) throws Exception {
    String bootstrap = stack.stack().info().kafka();
    Set<String> topics;
    // the administrator sees and reads every topic
    try (Admin admin = Admin.create(stack.kafka("admin"))) {
      topics = admin.listTopics().names().get();
    }
    List<String> ours = topics.stream().filter(t -> t.startsWith("stagecraft.")).toList();
    assertThat(ours).contains("stagecraft.actions", "stagecraft.dead-letter");
    List<String> out = new ArrayList<>();
    Properties props =
        stack
            .stack()
            .kafkaSettings("admin")
            .consumer("redaction-scan-" + UUID.randomUUID(), "redaction-scan", "earliest");
    props.put("isolation.level", "read_uncommitted");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : ours) {
        consumer
            .partitionsFor(topic)
            .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInSameThread()
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  StringBuilder text = new StringBuilder(r.topic()).append(' ');
                  text.append(r.key()).append(' ');
                  for (Header h : r.headers()) {
                    text.append(h.key())
                        .append('=')
                        .append(
                            h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8))
                        .append(' ');
                  }
                  if (r.value() != null) {
                    text.append(new String(r.value(), StandardCharsets.UTF_8));
                  }
                  out.add(text.toString());
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
              });
    }
    return out;
  }

  /** Every row of every table outside PostgreSQL's own schemas, as text. */
  static String databaseRows(SharedStack stack) throws Exception {
    StringBuilder all = new StringBuilder();
    try (Connection c = stack.stack().openDatabase();
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "select table_schema, table_name from information_schema.tables"
                  + " where table_type = 'BASE TABLE'"
                  + " and table_schema not in ('pg_catalog', 'information_schema')")) {
        while (rs.next()) {
          tables.add("\"" + rs.getString(1) + "\".\"" + rs.getString(2) + "\"");
        }
      }
      assertThat(tables).anyMatch(t -> t.startsWith("\"state\"."));
      for (String table : tables) {
        try (ResultSet rs = s.executeQuery("select t::text from " + table + " t")) {
          while (rs.next()) {
            all.append(table).append(' ').append(rs.getString(1)).append('\n');
          }
        }
      }
    }
    return all.toString();
  }
}
