package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedInfrastructureTest {

  @Test
  void kafkaBrokerAcceptsAndDeliversARecordAndKeepsItAcrossARestart() throws Exception {
    Path dir = Files.createTempDirectory("kafka");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
        admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
      }
      Properties p = new Properties();
      p.put("bootstrap.servers", kafka.bootstrapServers());
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
        producer.send(new ProducerRecord<>("t", "k", "hello")).get();
      }
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
      Properties c = new Properties();
      c.put("bootstrap.servers", kafka.bootstrapServers());
      c.put("group.id", "g");
      c.put("auto.offset.reset", "earliest");
      try (KafkaConsumer<String, String> consumer =
          new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
        consumer.subscribe(List.of("t"));
        String value = null;
        for (int i = 0; i < 60 && value == null; i++) {
          ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
          if (!records.isEmpty()) {
            value = records.iterator().next().value();
          }
        }
        assertThat(value).isEqualTo("hello");
      }
    }
  }

  @Test
  void postgresKeepsItsDataAcrossARestart() throws Exception {
    Path dir = Files.createTempDirectory("pg").resolve("data");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0);
        Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password())) {
      c.createStatement().execute("create table kept(v text)");
      c.createStatement().execute("insert into kept values ('still here')");
    }
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0);
        Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
        ResultSet rs = c.createStatement().executeQuery("select v from kept")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("still here");
    }
  }

  @Test
  void postgresAnswersNobodyWithoutItsGeneratedPasswordAndKeepsItAcrossARestart() throws Exception {
    Path dir = Files.createTempDirectory("pg").resolve("data");
    String password;
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0)) {
      password = pg.password();
      assertThat(password).hasSize(64).isNotEqualTo("postgres");
      assertThat(Files.readString(dir.resolveSibling("postgres-password")).strip())
          .isEqualTo(password);
      assertThat(Files.getPosixFilePermissions(dir.resolveSibling("postgres-password")))
          .containsExactlyInAnyOrder(
              java.nio.file.attribute.PosixFilePermission.OWNER_READ,
              java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
      for (String guess : new String[] {"postgres", "wrong"}) {
        assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), pg.user(), guess))
            .hasMessageContaining("password authentication failed");
      }
      assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), pg.user(), ""))
          .hasMessageContaining("requested SCRAM-based authentication");
    }
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0);
        Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), password)) {
      assertThat(pg.password()).isEqualTo(password);
      assertThat(c.isValid(5)).isTrue();
      assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), pg.user(), "postgres"))
          .hasMessageContaining("password authentication failed");
    }
  }
}
