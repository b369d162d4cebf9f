package dev.stagecraft.devstack;

import static dev.stagecraft.devstack.StackPrincipal.ADMIN;
import static dev.stagecraft.devstack.StackPrincipal.EXECUTOR;
import static dev.stagecraft.devstack.StackPrincipal.LOCK;
import static dev.stagecraft.devstack.StackPrincipal.PLANNER;
import static dev.stagecraft.devstack.StackPrincipal.STATE;
import static dev.stagecraft.devstack.StackPrincipal.TRIGGER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.platform.kafka.TopicBootstrap;
import dev.stagecraft.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dev stack's broker, set up as {@link DevStack} sets it up ({@link DevKafka}), enforces the
 * access matrix of ADR 0058 for every principal: each topic written and read (or refused) with the
 * service's own client settings, each consumer group joined (or refused), and the rest of what the
 * services do (the planner's look at the executors' offsets, nobody but an administrator creating
 * topics). The expected matrix is written out here, not derived from {@link KafkaAccessPolicy}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaAccessPolicyTest {
  private static final String DEAD_LETTER = EventConsumer.DEAD_LETTER_TOPIC;

  /** principal → topics it writes (every other topic is refused). */
  private static final Map<StackPrincipal, Set<String>> WRITES =
      Map.of(
          PLANNER,
          Set.of(
              Topics.ACTIONS,
              Topics.ACTION_EVENTS,
              Topics.RUN_EVENTS,
              Topics.CONTROL,
              Topics.TRIGGER_SECRETS,
              DEAD_LETTER),
          EXECUTOR,
          Set.of(Topics.ACTION_EVENTS, DEAD_LETTER),
          STATE,
          Set.of(Topics.STATE_EVENTS, DEAD_LETTER),
          LOCK,
          Set.of(Topics.LOCK_EVENTS),
          TRIGGER,
          Set.of(Topics.RUN_REQUESTS));

  /** principal → topics it reads (every other topic is refused). */
  private static final Map<StackPrincipal, Set<String>> READS =
      Map.of(
          PLANNER,
          Set.of(
              Topics.ACTIONS,
              Topics.ACTION_EVENTS,
              Topics.STATE_EVENTS,
              Topics.LOCK_EVENTS,
              Topics.RUN_REQUESTS,
              Topics.TRIGGER_SECRETS),
          EXECUTOR,
          Set.of(Topics.ACTIONS, Topics.CONTROL),
          STATE,
          Set.of(Topics.ACTION_EVENTS),
          LOCK,
          Set.of(),
          TRIGGER,
          Set.of(Topics.RUN_EVENTS));

  private Path dir;
  private DevKafka kafka;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-acl");
    kafka = DevKafka.start(new DevStackLayout(dir), 0);
    // one record on every topic, so that a principal allowed to read it gets something
    try (KafkaProducer<String, byte[]> admin =
        new KafkaProducer<>(kafka.settings(ADMIN).producer("seed"))) {
      for (String topic : TopicBootstrap.allTopics()) {
        admin.send(new ProducerRecord<>(topic, "k", bytes("seed"))).get(30, TimeUnit.SECONDS);
      }
    }
  }

  @AfterAll
  void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  static Stream<Arguments> principalsAndTopics() {
    List<Arguments> all = new ArrayList<>();
    for (StackPrincipal p : List.of(PLANNER, EXECUTOR, STATE, LOCK, TRIGGER)) {
      for (String topic : TopicBootstrap.allTopics()) {
        all.add(Arguments.of(p, topic));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} writes {1} only if allowed")
  @MethodSource("principalsAndTopics")
  void aPrincipalWritesExactlyTheTopicsItsRoleWrites(StackPrincipal principal, String topic)
      throws Exception {
    Properties p = kafka.settings(principal).producer(principal.user() + "-write-check");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      var sent = producer.send(new ProducerRecord<>(topic, "k", bytes("probe")));
      if (WRITES.get(principal).contains(topic)) {
        // an idempotent producer, as every service's: allowed without IDEMPOTENT_WRITE
        assertThat(sent.get(30, TimeUnit.SECONDS).hasOffset()).isTrue();
      } else {
        assertThatThrownBy(() -> sent.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(TopicAuthorizationException.class);
      }
    }
  }

  @ParameterizedTest(name = "{0} reads {1} only if allowed")
  @MethodSource("principalsAndTopics")
  void aPrincipalReadsExactlyTheTopicsItsRoleReads(StackPrincipal principal, String topic) {
    // assigned partitions, no group: what the planner's recovery and trigger-secrets view do
    Properties p = kafka.settings(principal).consumer("unused", principal.user(), "earliest");
    p.remove("group.id");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        partitions.add(new TopicPartition(topic, i));
      }
      consumer.assign(partitions);
      if (READS.get(principal).contains(topic)) {
        List<String> keys = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (keys.isEmpty() && System.nanoTime() < deadline) {
          consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
        }
        assertThat(keys).as("records read from %s", topic).isNotEmpty();
      } else {
        assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
            .isInstanceOf(TopicAuthorizationException.class);
      }
    }
  }

  static Stream<Arguments> groups() {
    String uuid = UUID.randomUUID().toString();
    return Stream.of(
        Arguments.of(PLANNER, Topics.STATE_EVENTS, "planner-planner-1-" + uuid + "-state", true),
        Arguments.of(PLANNER, Topics.RUN_REQUESTS, Topics.RUN_REQUESTS_GROUP, true),
        Arguments.of(PLANNER, Topics.ACTIONS, Topics.EXECUTORS_GROUP, false),
        Arguments.of(EXECUTOR, Topics.ACTIONS, Topics.EXECUTORS_GROUP, true),
        Arguments.of(EXECUTOR, Topics.CONTROL, "executors-control-executor-1-" + uuid, true),
        Arguments.of(EXECUTOR, Topics.ACTIONS, "planner-executor-" + uuid, false),
        Arguments.of(STATE, Topics.ACTION_EVENTS, Topics.STATE_GROUP, true),
        Arguments.of(STATE, Topics.ACTION_EVENTS, Topics.EXECUTORS_GROUP, false),
        Arguments.of(TRIGGER, Topics.RUN_EVENTS, "trigger-slack-bot", true),
        Arguments.of(TRIGGER, Topics.RUN_EVENTS, Topics.RUN_REQUESTS_GROUP, false),
        Arguments.of(TRIGGER, Topics.RUN_EVENTS, "slack-bot", false));
  }

  @ParameterizedTest(name = "{0} in group {2}: {3}")
  @MethodSource("groups")
  void aPrincipalJoinsOnlyItsOwnConsumerGroups(
      StackPrincipal principal, String topic, String group, boolean allowed) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            kafka.settings(principal).consumer(group, principal.user(), "latest"))) {
      consumer.subscribe(List.of(topic));
      if (allowed) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
          consumer.poll(Duration.ofMillis(200));
        }
        assertThat(consumer.assignment()).as("partitions assigned in group %s", group).isNotEmpty();
        consumer.commitSync(); // and its offsets can be committed
      } else {
        assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
            .isInstanceOf(GroupAuthorizationException.class);
      }
    }
  }

  @Test
  void onlyThePlannerReadsTheExecutorsCommittedOffsets() throws Exception {
    // an executor's claim: the group's offset committed past a dispatch (ADR 0007)
    TopicPartition claimed = new TopicPartition(Topics.ACTIONS, 2);
    Properties p =
        kafka.settings(EXECUTOR).consumer(Topics.EXECUTORS_GROUP, "executor", "earliest");
    try (KafkaConsumer<String, byte[]> executor = new KafkaConsumer<>(p)) {
      executor.assign(List.of(claimed));
      executor.commitSync(Map.of(claimed, new OffsetAndMetadata(1)));
    }
    try (Admin planner = Admin.create(kafka.settings(PLANNER).client())) {
      assertThat(
              planner
                  .listConsumerGroupOffsets(Topics.EXECUTORS_GROUP)
                  .partitionsToOffsetAndMetadata()
                  .get(30, TimeUnit.SECONDS)
                  .get(claimed)
                  .offset())
          .isEqualTo(1);
    }
    try (Admin trigger = Admin.create(kafka.settings(TRIGGER).client())) {
      assertThatThrownBy(
              () ->
                  trigger
                      .listConsumerGroupOffsets(Topics.EXECUTORS_GROUP)
                      .partitionsToOffsetAndMetadata()
                      .get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(GroupAuthorizationException.class);
    }
  }

  @Test
  void noServiceCreatesTopicsOnlyTheAdministrator() throws Exception {
    for (StackPrincipal p : List.of(PLANNER, EXECUTOR, STATE, LOCK, TRIGGER)) {
      try (Admin admin = Admin.create(kafka.settings(p).client())) {
        assertThatThrownBy(
                () ->
                    admin
                        .createTopics(List.of(new NewTopic("by-" + p.user(), 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS))
            .as(p.user())
            .hasCauseInstanceOf(TopicAuthorizationException.class);
      }
    }
    try (Admin admin = Admin.create(kafka.settings(ADMIN).client())) {
      admin
          .createTopics(List.of(new NewTopic("by-admin", 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      // the controller has the topic once create returns; a broker's metadata follows shortly
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                      .contains("by-admin"));
    }
  }

  @Test
  void aServiceSeesOnlyTheTopicsItUsesAndItsStartFindsThemAll() throws Exception {
    try (Admin executor = Admin.create(kafka.settings(EXECUTOR).client())) {
      assertThat(executor.listTopics().names().get(30, TimeUnit.SECONDS))
          .containsExactlyInAnyOrder(
              Topics.ACTIONS, Topics.CONTROL, Topics.ACTION_EVENTS, DEAD_LETTER);
    }
    // what the executor's start does: finds its topics, creates nothing
    TopicBootstrap.ensureTopics(
        kafka.settings(EXECUTOR),
        List.of(Topics.ACTIONS, Topics.CONTROL, Topics.ACTION_EVENTS, DEAD_LETTER),
        4,
        (short) 1);
    // a topic it may not see stops the start, named with the principal
    assertThatThrownBy(
            () ->
                TopicBootstrap.ensureTopics(
                    kafka.settings(EXECUTOR), List.of(Topics.TRIGGER_SECRETS), 4, (short) 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Topics.TRIGGER_SECRETS)
        .hasMessageContaining("principal 'executor'")
        .hasMessageContaining("may not create");
  }

  @Test
  void aWrongPasswordIsRefusedAndNamedInTheStartError() {
    KafkaSettings wrong =
        new KafkaSettings(
            kafka.bootstrapServers(), new KafkaSettings.Credentials("planner", "not-its-password"));
    assertThatThrownBy(() -> TopicBootstrap.ensureTopics(wrong, 4, (short) 1))
        .isInstanceOf(IllegalStateException.class)
        .hasCauseInstanceOf(SaslAuthenticationException.class)
        .hasMessageContaining("refused the credentials of principal 'planner'")
        .hasMessageContaining("STAGECRAFT_KAFKA_PASSWORD")
        .hasMessageNotContaining("not-its-password");
  }

  @Test
  void aRestartKeepsThePasswordsAndTheAclsWithoutDuplicates() throws Exception {
    DevStackLayout layout = new DevStackLayout(dir);
    String password = Files.readString(layout.kafkaPasswordFile("trigger")).strip();
    assertThat(Files.getPosixFilePermissions(layout.kafkaUsersDir()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(Files.getPosixFilePermissions(layout.kafkaPasswordFile("trigger")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(layout.kafkaClientPropertiesFile("trigger")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.readString(layout.kafkaClientPropertiesFile("trigger")))
        .contains("sasl.mechanism=SCRAM-SHA-512")
        .contains("username=\"trigger\" password=\"" + password + "\"");

    // an ACL of a stack principal the policy does not have goes; another principal's stays
    AclBinding stale = KafkaAccessPolicy.botBindings("trigger").get(0);
    stale =
        new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, Topics.LOCK_EVENTS, PatternType.LITERAL),
            stale.entry());
    List<AclBinding> anotherBot = KafkaAccessPolicy.botBindings("release-bot");
    try (Admin admin = Admin.create(kafka.settings(ADMIN).client())) {
      List<AclBinding> added = new ArrayList<>(anotherBot);
      added.add(stale);
      admin.createAcls(added).all().get(30, TimeUnit.SECONDS);
    }

    kafka.close();
    kafka = DevKafka.start(layout, 0);

    assertThat(Files.readString(layout.kafkaPasswordFile("trigger")).strip()).isEqualTo(password);
    try (Admin admin = Admin.create(kafka.settings(ADMIN).client())) {
      List<AclBinding> expected = new ArrayList<>(KafkaAccessPolicy.bindings());
      expected.addAll(anotherBot);
      assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get())
          .containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(kafka.settings(TRIGGER).credentials().password()).isEqualTo(password);
  }

  @Test
  void takesOverTheLogDirectoryOfAStackFromBeforeAuthentication() throws Exception {
    Path old = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "kafka-plain");
    DevStackLayout layout = new DevStackLayout(old);
    try (EmbeddedKafka plain = EmbeddedKafka.start(layout.kafkaDir(), 0)) {
      TopicBootstrap.ensureTopics(new KafkaSettings(plain.bootstrapServers()), 4, (short) 1);
      try (KafkaProducer<String, byte[]> producer =
          new KafkaProducer<>(new KafkaSettings(plain.bootstrapServers()).producer("old"))) {
        producer
            .send(new ProducerRecord<>(Topics.RUN_EVENTS, 0, "old", bytes("kept")))
            .get(30, TimeUnit.SECONDS);
      }
    }
    try (DevKafka secured = DevKafka.start(layout, 0);
        KafkaConsumer<String, byte[]> trigger =
            new KafkaConsumer<>(
                secured.settings(TRIGGER).consumer("trigger-old", "trigger", "earliest"))) {
      trigger.subscribe(List.of(Topics.RUN_EVENTS));
      List<String> keys = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (keys.isEmpty() && System.nanoTime() < deadline) {
        trigger.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
      }
      assertThat(keys).containsExactly("old");
      try (Admin anonymous = Admin.create(anonymous(secured.bootstrapServers()))) {
        assertThatThrownBy(() -> anonymous.listTopics().names().get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class);
      }
    }
  }

  @Test
  void nobodyAnonymousIsAnsweredOnEitherListener() throws Exception {
    try (Admin anonymous = Admin.create(anonymous(kafka.bootstrapServers()))) {
      assertThatThrownBy(() -> anonymous.listTopics().names().get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }
    Properties controller = new Properties();
    controller.put("bootstrap.controllers", kafka.controllerServers());
    controller.put("default.api.timeout.ms", 5_000);
    controller.put("request.timeout.ms", 5_000);
    try (Admin anonymous = Admin.create(controller)) {
      assertThatThrownBy(() -> anonymous.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }
    // nor does a service's SCRAM principal get in there (PLAIN, the broker's own user only)
    controller.put("security.protocol", "SASL_PLAINTEXT");
    controller.put("sasl.mechanism", "PLAIN");
    controller.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
            + " password=\""
            + kafka.settings(ADMIN).credentials().password()
            + "\";");
    try (Admin admin = Admin.create(controller)) {
      assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(SaslAuthenticationException.class);
    }
  }

  /** A client without credentials, giving up after 5 s. */
  private static Properties anonymous(String bootstrap) {
    Properties p = new KafkaSettings(bootstrap).client();
    p.put("default.api.timeout.ms", 5_000);
    p.put("request.timeout.ms", 5_000);
    return p;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
