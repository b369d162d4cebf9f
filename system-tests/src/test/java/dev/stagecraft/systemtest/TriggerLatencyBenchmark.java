package dev.stagecraft.systemtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.Topics;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Trigger-to-action latency (issue 6): runs of a {@value #CHAIN}-resource {@code depends_on} chain
 * whose only provisioner is {@code local-exec "true"}, triggered by {@code POST /api/v1/runs} on
 * the real dev stack, one run at a time, round-robin over the workspaces. For each run it measures
 * from just before the POST to (a) the POST's answer (accepted), (b) the first {@code
 * action.started} and (c) the run's {@code applied} transition — (b) and (c) as this process
 * receives them from {@code stagecraft.action-events} / {@code stagecraft.run-events}, so each
 * includes one Kafka hop to the observer, which the floor counts too.
 *
 * <p>In the same process, after the runs, it measures the floor's parts on the same stack: an HTTP
 * round trip to the planner, a Kafka produce→consume round trip (acks=all, linger 0, a topic of its
 * own), a PostgreSQL autocommit insert, and fork+exec of {@code true}; and composes them as the
 * path requires ({@link #firstActionFloor}, {@link #doneFloor}; docs/benchmarks.md). Run with
 * {@code dev/bench latency [RUNS] [WORKSPACES] [FLOOR_SAMPLES] [WARM_UP]} (not part of the test
 * suite: it asserts no timing). The first {@code WARM_UP} runs (default 100 per workspace; 30 until
 * 2026-11-28, five before 2026-11-21 evening) are not measured: after five per workspace the
 * services' C2 compilers still took about a quarter of the stack's CPU per measured run, after 30
 * about a seventh, after 100 about a sixteenth (docs/benchmarks.md), and a service that has been up
 * a while is what the numbers should show.
 *
 * <p>It also prints the CPU time each process of the stack (and its busiest threads) used per
 * measured run ({@link ProcessCpu}): unlike the latencies, that does not grow when other work loads
 * the machine.
 */
public final class TriggerLatencyBenchmark {
  static final int CHAIN = 10;
  private static final ObjectMapper JSON = new ObjectMapper();

  private TriggerLatencyBenchmark() {}

  /** When this process saw a run's milestones (nanoTime), filled in by the observer thread. */
  static final class Seen {
    final CompletableFuture<Long> firstStarted = new CompletableFuture<>();
    final CompletableFuture<Long> ended = new CompletableFuture<>();
    volatile String endStatus;

    /** Each action.started seen: its envelope time (the executor's clock) and when seen here. */
    final List<java.time.Instant[]> starts =
        java.util.Collections.synchronizedList(new ArrayList<>());
  }

  public static void main(String[] args) {
    try {
      measure(args);
      System.exit(0);
    } catch (Exception | Error e) {
      // the observer thread and the stack would keep the JVM alive: end it (the hook stops the
      // stack)
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void measure(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int workspaces = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int floorSamples = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    // unmeasured runs first (at least one per workspace: it creates the resources): the services'
    // JVMs were started a moment ago, and their JIT compilers would otherwise still be compiling
    // the run's path, on the same cores, during the measured runs (the compiler threads' CPU per
    // run is printed below: it shows whether the warm-up was long enough)
    int warmUp =
        Math.max(workspaces, args.length > 3 ? Integer.parseInt(args[3]) : 100 * workspaces);
    // a fifth argument "traced": every service exports its spans (ADR 0083, sampled at 100%) to
    // an OTLP/HTTP receiver in this process, the harness's tracing-overhead comparison
    boolean traced = args.length > 4 && args[4].equals("traced");
    OtlpReceiver receiver = traced ? new OtlpReceiver() : null;
    SharedStack stack =
        traced
            ? SharedStack.dedicated(
                "latency-traced", Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()))
            : SharedStack.get();
    String prefix = "lat-" + UUID.randomUUID().toString().substring(0, 6) + "-";
    Map<String, Seen> seen = new ConcurrentHashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    CompletableFuture<Void> observing = new CompletableFuture<>();
    Thread observer =
        Thread.ofPlatform()
            .name("latency-observer")
            .start(() -> observe(stack, prefix, seen, stop, observing));
    observing.get(60, TimeUnit.SECONDS);

    HttpClient http = HttpClient.newHttpClient();
    List<Long> accepted = new ArrayList<>();
    List<Long> firstAction = new ArrayList<>();
    List<Long> done = new ArrayList<>();
    Map<String, List<Long>> segments = new java.util.LinkedHashMap<>();
    List<MeasuredRun> measured = new ArrayList<>();
    // the warm-up runs (the first on each workspace creates its resources), then the measured runs
    // (replacements)
    ProcessCpu.Snapshot cpuBefore = null;
    Map<String, Long> requestsBefore = Map.of();
    // -Dlatency.startCpu=true: also the CPU used from just before each POST until its first
    // action.started was seen (the reading of /proc then competes with the rest of the run)
    boolean startCpu = Boolean.getBoolean("latency.startCpu");
    ProcessCpu.Snapshot startWindows = null;
    // -Dlatency.warmUpBlocks=N: the first action's p50/p99 over every N warm-up runs, printed as
    // they end, to show whether (and when) a longer warm-up still lowers the latency
    int block = Integer.getInteger("latency.warmUpBlocks", 0);
    PrintStream out = System.out; // the harness's report (stdout)
    List<Long> blockFirstAction = new ArrayList<>();
    // read once before the warm-up: the first reading of /proc and of the broker's metrics spins
    // classes (lambdas, string concatenation) and gives this JVM's JIT some thousand methods to
    // compile, which would otherwise share the cores with the first measured runs
    ProcessCpu.snapshot(stackProcesses(stack));
    brokerRequests();
    for (int i = -warmUp; i < runs; i++) {
      if (i == 0) {
        cpuBefore = ProcessCpu.snapshot(stackProcesses(stack));
        requestsBefore = brokerRequests();
      }
      String ws = prefix + Math.floorMod(i, workspaces);
      ProcessCpu.Snapshot beforeStart =
          startCpu && i >= 0 ? ProcessCpu.snapshot(stackProcesses(stack)) : null;
      java.time.Instant wall0 = java.time.Instant.now();
      long t0 = System.nanoTime();
      String runId = trigger(stack, ws, "r" + i);
      long t1 = System.nanoTime();
      Seen s = seen.computeIfAbsent(runId, k -> new Seen());
      if (beforeStart != null) {
        s.firstStarted.get(120, TimeUnit.SECONDS);
        startWindows =
            ProcessCpu.accumulate(
                startWindows, beforeStart, ProcessCpu.snapshot(stackProcesses(stack)));
      }
      long ended = s.ended.get(120, TimeUnit.SECONDS);
      if (!"applied".equals(s.endStatus)) {
        throw new IllegalStateException("run " + runId + " ended " + s.endStatus);
      }
      long started = s.firstStarted.get(1, TimeUnit.SECONDS);
      if (i < 0 && block > 0) {
        blockFirstAction.add(started - t0);
        if (blockFirstAction.size() == block) {
          out.printf(
              Locale.ROOT,
              "warm-up runs %d-%d: first action.started p50 %.2f ms  p99 %.2f ms%n",
              warmUp + i + 2 - block,
              warmUp + i + 1,
              ms(pct(blockFirstAction, 50)),
              ms(pct(blockFirstAction, 99)));
          out.flush();
          blockFirstAction.clear();
        }
      }
      if (i >= 0) {
        accepted.add(t1 - t0);
        firstAction.add(started - t0);
        done.add(ended - t0);
        // the journal is read after the last run: reading it here would add work (and, in the
        // planner and this JVM, code the warm-up never ran, so JIT compilation) between runs
        measured.add(new MeasuredRun(runId, wall0, s));
      }
      seen.remove(runId);
    }
    ProcessCpu.Snapshot cpuAfter = ProcessCpu.snapshot(stackProcesses(stack));
    Map<String, Long> requestsAfter = brokerRequests();
    stop.set(true);
    observer.join();
    for (MeasuredRun m : measured) {
      segments(http, stack, m, segments);
    }

    Floor floor = measureFloor(stack, floorSamples);
    stack.stop();
    if (receiver != null) {
      out.printf(Locale.ROOT, "spans received: %d%n", receiver.spans().size());
      receiver.close();
    }
    out.printf(
        Locale.ROOT,
        "runs=%d workspaces=%d warm-up runs=%d chain=%d (local-exec \"true\"), one run at a"
            + " time%n",
        runs,
        workspaces,
        warmUp,
        CHAIN);
    out.printf(
        Locale.ROOT,
        "floor parts p50/p99 ms: http %.2f/%.2f  kafka %.2f/%.2f  pg-commit %.2f/%.2f"
            + "  fork %.2f/%.2f%n",
        ms(pct(floor.http, 50)),
        ms(pct(floor.http, 99)),
        ms(pct(floor.kafka, 50)),
        ms(pct(floor.kafka, 99)),
        ms(pct(floor.pg, 50)),
        ms(pct(floor.pg, 99)),
        ms(pct(floor.fork, 50)),
        ms(pct(floor.fork, 99)));
    out.println("where the time goes (medians over the measured runs; planner journal times):");
    segments.forEach(
        (what, values) ->
            out.printf(
                Locale.ROOT,
                "  %-52s p50 %8.2f ms  p99 %8.2f ms%n",
                what,
                ms(pct(values, 50)),
                ms(pct(values, 99))));
    row(out, "POST accepted", accepted, "1 http", pct(floor.http, 50), pct(floor.http, 99));
    row(
        out,
        "first action.started",
        firstAction,
        FIRST_HTTP + " http + " + FIRST_KAFKA + " kafka + " + FIRST_PG + " pg",
        firstActionFloor(floor, 50),
        firstActionFloor(floor, 99));
    row(
        out,
        "run applied",
        done,
        DONE_HTTP
            + " http + "
            + DONE_KAFKA
            + " kafka + "
            + DONE_PG
            + " pg + "
            + DONE_FORK
            + " fork",
        doneFloor(floor, 50),
        doneFloor(floor, 99));
    // CPU is what a loaded machine does not distort: what each process (and thread) spent per run
    ProcessCpu.report(out, cpuBefore, cpuAfter, runs, 8);
    reportRequests(out, requestsBefore, requestsAfter, runs);
    if (startWindows != null) {
      ProcessCpu.report(out, "CPU from trigger to first action.started", startWindows, runs, 8);
    }
  }

  /**
   * How many requests of each kind (Produce, Fetch, OffsetCommit, ...) the broker handled so far,
   * from its request metrics (the dev stack's broker runs in this JVM). Every request is a wake-up
   * of a broker thread and, for Produce, of the consumers waiting in a fetch: the count shows what
   * batching saves independently of how loaded the machine is.
   */
  static Map<String, Long> brokerRequests() {
    javax.management.MBeanServer server =
        java.lang.management.ManagementFactory.getPlatformMBeanServer();
    Map<String, Long> counts = new java.util.TreeMap<>();
    try {
      for (javax.management.ObjectName name :
          server.queryNames(
              new javax.management.ObjectName(
                  "kafka.network:type=RequestMetrics,name=RequestsPerSec,*"),
              null)) {
        Object count = server.getAttribute(name, "Count");
        counts.merge(name.getKeyProperty("request"), ((Number) count).longValue(), Long::sum);
      }
      // produce requests that carried records of each topic (one request may carry several)
      for (javax.management.ObjectName name :
          server.queryNames(
              new javax.management.ObjectName(
                  "kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec,topic=*"),
              null)) {
        Object count = server.getAttribute(name, "Count");
        counts.merge(
            "Produce[" + name.getKeyProperty("topic") + "]",
            ((Number) count).longValue(),
            Long::sum);
      }
    } catch (javax.management.JMException e) {
      throw new IllegalStateException("cannot read the broker's request metrics", e);
    }
    return counts;
  }

  private static void reportRequests(
      PrintStream out, Map<String, Long> before, Map<String, Long> after, int runs) {
    StringBuilder line = new StringBuilder("broker requests per run:");
    after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(
            e ->
                line.append(
                    String.format(
                        Locale.ROOT, " %s %.1f", e.getKey(), e.getValue() / (double) runs)));
    out.println(line);
  }

  private static Map<String, Long> stackProcesses(SharedStack stack) {
    String url = stack.stack().info().postgres(); // jdbc:postgresql://127.0.0.1:PORT/...
    int port = URI.create(url.substring("jdbc:".length())).getPort();
    return ProcessCpu.stackProcesses(stack.stack().info().services(), port);
  }

  // The composition of the floor, as the path is since docs/adr/0025. First action: the trigger
  // POST (nothing committed in it: the run's records are written off its path); the lock acquire
  // (lock-service, a commit); opening the run (state-service, one call and one commit: fencing
  // token, run credential, host keys, state); the dispatch (Kafka to the executor) and
  // action.started (Kafka to the observer). The run's transitions (planning, planned, applying)
  // are neither committed nor acknowledged by Kafka before the dispatch.
  static final int FIRST_HTTP = 3;
  static final int FIRST_PG = 2;
  static final int FIRST_KAFKA = 2;
  // Done: the same start; per action: dispatch → executor, action.finished → state-service (a
  // commit), state.recorded → planner (3 Kafka hops, 1 commit, the command's fork+exec); then the
  // credential revoked and the lock released (HTTP + commit each) and run.transitioned → observer
  // (Kafka; the applied record is written after it, off the path).
  static final int DONE_HTTP = FIRST_HTTP + 2;
  static final int DONE_PG = FIRST_PG + CHAIN + 2;
  static final int DONE_KAFKA = 3 * CHAIN + 1;
  static final int DONE_FORK = CHAIN;

  record Floor(List<Long> http, List<Long> kafka, List<Long> pg, List<Long> fork) {}

  /** The floor of the first action, from the parts' percentile {@code p}. */
  static long firstActionFloor(Floor f, int p) {
    return FIRST_HTTP * pct(f.http, p) + FIRST_KAFKA * pct(f.kafka, p) + FIRST_PG * pct(f.pg, p);
  }

  /** The floor of the whole run, from the parts' percentile {@code p}. */
  static long doneFloor(Floor f, int p) {
    return DONE_HTTP * pct(f.http, p)
        + DONE_KAFKA * pct(f.kafka, p)
        + DONE_PG * pct(f.pg, p)
        + DONE_FORK * pct(f.fork, p);
  }

  private static void row(
      PrintStream out,
      String what,
      List<Long> values,
      String composition,
      long floor50,
      long floor99) {
    long p50 = pct(values, 50);
    long p99 = pct(values, 99);
    out.printf(
        Locale.ROOT,
        "%-22s p50 %8.2f ms  p99 %8.2f ms | floor (%s) p50 %7.2f ms p99 %7.2f ms"
            + " | ratio p50 %.1fx p99 %.1fx%n",
        what,
        ms(p50),
        ms(p99),
        composition,
        ms(floor50),
        ms(floor99),
        (double) p50 / Math.max(floor50, 1),
        (double) p99 / Math.max(floor99, 1));
  }

  private static String trigger(SharedStack stack, String ws, String round) throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "workspace",
                ws,
                "files",
                Map.of("main.tf", chain()),
                "variables",
                Map.of("round", round)));
    Exchange created =
        exchange(
            stack.plannerUrl() + "/api/v1/runs",
            "Bearer " + stack.token(),
            body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    if (created.status() != 201) {
      throw new IllegalStateException("POST /runs: " + created.status() + " " + created.body());
    }
    return JSON.readTree(created.body()).get("id").asText();
  }

  record Exchange(int status, String body) {}

  /**
   * One HTTP/1.1 exchange on the calling thread over a kept-alive connection ({@link
   * java.net.HttpURLConnection}), a POST when {@code body} is not null. The trigger and the floor's
   * HTTP round trip use the same client, so the floor counts what the client costs. (The JDK's
   * {@code java.net.http} client hands each exchange between the caller, its selector thread and
   * its executor: about 1 ms more per exchange on a 2-core machine, docs/benchmarks.md.)
   */
  static Exchange exchange(String url, String authorization, byte[] body) throws Exception {
    java.net.HttpURLConnection c =
        (java.net.HttpURLConnection) URI.create(url).toURL().openConnection();
    c.setUseCaches(false);
    c.setConnectTimeout(10_000);
    c.setReadTimeout(60_000);
    if (authorization != null) {
      c.setRequestProperty("Authorization", authorization);
    }
    if (body != null) {
      c.setRequestMethod("POST");
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/json");
      c.setFixedLengthStreamingMode(body.length);
      try (java.io.OutputStream out = c.getOutputStream()) {
        out.write(body);
      }
    }
    int status = c.getResponseCode();
    java.io.InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    String text = "";
    if (in != null) {
      try (in) {
        text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      }
    }
    return new Exchange(status, text);
  }

  /** A measured run, whose segments are read from the planner's journal after the last run. */
  record MeasuredRun(String runId, java.time.Instant wall0, Seen seen) {}

  /**
   * Adds a measured run's segments: those of its journal ({@link #breakdown}), and the first two
   * actions' dispatch → {@code action.started} split at the executor's envelope time (when it
   * published the event) into the way to the executor and the way back to this process.
   */
  private static void segments(
      HttpClient http, SharedStack stack, MeasuredRun m, Map<String, List<Long>> segments)
      throws Exception {
    List<java.time.Instant> dispatches = breakdown(http, stack, m.runId(), m.wall0(), segments);
    List<java.time.Instant[]> starts = m.seen().starts;
    for (int k = 0; k < 2 && k < dispatches.size() && k < starts.size(); k++) {
      String which = k == 0 ? "first" : "second";
      java.time.Instant[] st = starts.get(k);
      segments
          .computeIfAbsent(which + " dispatch -> started sent (executor)", x -> new ArrayList<>())
          .add(java.time.Duration.between(dispatches.get(k), st[0]).toNanos());
      segments
          .computeIfAbsent(which + " started sent -> seen (harness)", x -> new ArrayList<>())
          .add(java.time.Duration.between(st[0], st[1]).toNanos());
    }
  }

  /**
   * Splits one run into the segments of its path, from the planner's journal (same machine, same
   * wall clock as {@code wall0}): trigger → pending → planning → planned → applying → first
   * dispatch → first start, then per action start → complete → next dispatch, last complete →
   * applied. Returns the dispatches' journal times, in order.
   */
  private static List<java.time.Instant> breakdown(
      HttpClient http,
      SharedStack stack,
      String runId,
      java.time.Instant wall0,
      Map<String, List<Long>> segments)
      throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        stack.plannerUrl() + "/api/v1/runs/" + runId + "/events?after=0&wait=0"))
                .header("Authorization", "Bearer " + stack.token())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    java.time.Instant previous = wall0;
    String previousName = "trigger";
    boolean firstDispatch = true;
    boolean firstStart = true;
    List<java.time.Instant> dispatches = new ArrayList<>();
    for (JsonNode e : JSON.readTree(r.body()).path("events")) {
      String kind = e.path("kind").asText();
      String message = e.path("message").asText("");
      String name;
      if (kind.equals("status")) {
        name = e.path("status").asText();
      } else if (kind.equals("action") && message.endsWith(" dispatched")) {
        name = firstDispatch ? "first dispatch" : "next dispatch";
        firstDispatch = false;
      } else if (kind.equals("action") && message.startsWith("started on")) {
        name = firstStart ? "first started (journal)" : "started (journal)";
        firstStart = false;
      } else if (kind.equals("action") && message.equals("complete")) {
        name = "complete (state.recorded)";
      } else {
        continue;
      }
      JsonNode time = e.path("time");
      java.time.Instant at;
      if (time.isNumber()) { // Jackson's default for Instant: epoch seconds with a fraction
        java.math.BigDecimal seconds = time.decimalValue();
        at =
            java.time.Instant.ofEpochSecond(
                seconds.longValue(),
                seconds.remainder(java.math.BigDecimal.ONE).movePointRight(9).longValue());
      } else {
        at = java.time.Instant.parse(time.asText());
      }
      segments
          .computeIfAbsent(previousName + " -> " + name, k -> new ArrayList<>())
          .add(java.time.Duration.between(previous, at).toNanos());
      if (name.endsWith("dispatch")) {
        dispatches.add(at);
      }
      previous = at;
      previousName = name;
    }
    return dispatches;
  }

  static String chain() {
    StringBuilder config = new StringBuilder("variable \"round\" {\n}\n");
    for (int i = 0; i < CHAIN; i++) {
      config.append(
          """
          resource "stateful_provisioning" "r%d" {
            state_key = var.round
            %s
            provisioner "local-exec" {
              command = "true"
            }
          }
          """
              .formatted(i, i == 0 ? "" : "depends_on = [stateful_provisioning.r" + (i - 1) + "]"));
    }
    return config.toString();
  }

  /** Reads action and run events from the end of the topics; records first start and the end. */
  private static void observe(
      SharedStack stack,
      String prefix,
      Map<String, Seen> seen,
      AtomicBoolean stop,
      CompletableFuture<Void> ready) {
    Properties p = stack.kafka("admin"); // reads action-events and run-events
    p.put("enable.auto.commit", "false");
    // the broker answers a waiting fetch as soon as a record arrives: a short fetch.max.wait.ms
    // only makes this consumer ask again every few milliseconds while it waits, work that
    // competes with the stack for the CPU
    p.put("fetch.max.wait.ms", "500");
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : List.of(Topics.ACTION_EVENTS, Topics.RUN_EVENTS)) {
        consumer
            .partitionsFor(topic)
            .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position); // resolve the end offsets before the first trigger
      ready.complete(null);
      while (!stop.get()) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(50))) {
          long now = System.nanoTime();
          if (!mayMatter(r.value())) {
            continue; // log lines, steps, heartbeats, results: not decoded (CPU the stack shares)
          }
          EventEnvelope e = EventCodec.decode(r.value());
          if (e.workspace() == null || !e.workspace().startsWith(prefix)) {
            continue;
          }
          JsonNode data = e.data();
          String runId = data.path("runId").asText();
          if (e.type().equals("dev.stagecraft.action.started")) {
            Seen s = seen.computeIfAbsent(runId, k -> new Seen());
            s.starts.add(new java.time.Instant[] {e.time(), java.time.Instant.now()});
            s.firstStarted.complete(now);
          } else if (e.type().equals("dev.stagecraft.run.transitioned")) {
            String status = data.path("status").asText();
            if (List.of("applied", "errored", "canceled", "planned_and_finished")
                .contains(status)) {
              Seen s = seen.computeIfAbsent(runId, k -> new Seen());
              s.endStatus = status;
              s.ended.complete(now);
            }
          }
        }
      }
    } catch (RuntimeException e) {
      ready.completeExceptionally(e);
      throw e;
    }
  }

  private static final byte[] STARTED =
      "dev.stagecraft.action.started".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] TRANSITIONED =
      "dev.stagecraft.run.transitioned".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** Whether an event's bytes may be one the observer needs (its type appears in them). */
  static boolean mayMatter(byte[] value) {
    return indexOf(value, STARTED) >= 0 || indexOf(value, TRANSITIONED) >= 0;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static Floor measureFloor(SharedStack stack, int n) throws Exception {
    List<Long> httpRt = new ArrayList<>();
    String discovery = stack.plannerUrl() + "/.well-known/stagecraft.json";
    for (int i = -20; i < n; i++) {
      long t0 = System.nanoTime();
      Exchange r = exchange(discovery, null, null);
      long t1 = System.nanoTime();
      if (r.status() != 200) {
        throw new IllegalStateException("discovery: " + r.status());
      }
      if (i >= 0) {
        httpRt.add(t1 - t0);
      }
    }
    List<Long> kafkaRt = kafkaRoundTrips(stack, n);
    List<Long> pg = new ArrayList<>();
    try (Connection c = stack.stack().openDatabase()) {
      c.createStatement()
          .execute("CREATE TABLE IF NOT EXISTS bench_latency_floor (id bigint, at timestamptz)");
      try (PreparedStatement insert =
          c.prepareStatement("INSERT INTO bench_latency_floor VALUES (?, now())")) {
        for (int i = -20; i < n; i++) {
          long t0 = System.nanoTime();
          insert.setLong(1, i);
          insert.executeUpdate(); // autocommit: one commit, with its WAL flush
          long t1 = System.nanoTime();
          if (i >= 0) {
            pg.add(t1 - t0);
          }
        }
      }
      c.createStatement().execute("DROP TABLE bench_latency_floor");
    }
    List<Long> fork = new ArrayList<>();
    for (int i = -10; i < n; i++) {
      long t0 = System.nanoTime();
      new ProcessBuilder("/bin/sh", "-c", "true").start().waitFor();
      long t1 = System.nanoTime();
      if (i >= 0) {
        fork.add(t1 - t0);
      }
    }
    return new Floor(httpRt, kafkaRt, pg, fork);
  }

  private static List<Long> kafkaRoundTrips(SharedStack stack, int n) throws Exception {
    String topic = "stagecraft-bench-floor-" + UUID.randomUUID().toString().substring(0, 8);
    // the administrator creates the topic and writes and reads it (authenticated once per client)
    try (Admin a = Admin.create(stack.kafka("admin"))) {
      a.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Properties pp = stack.kafka("admin");
    pp.put("acks", "all");
    pp.put("linger.ms", "0");
    Properties cp = stack.kafka("admin");
    cp.put("enable.auto.commit", "false");
    cp.put("fetch.max.wait.ms", "500"); // answered on arrival, as the observer's
    List<Long> rt = new ArrayList<>();
    try (KafkaProducer<String, byte[]> producer =
            new KafkaProducer<>(pp, new StringSerializer(), new ByteArraySerializer());
        KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(cp, new StringDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      consumer.position(tp);
      for (int i = -20; i < n; i++) {
        long t0 = System.nanoTime();
        producer.send(new ProducerRecord<>(topic, "k", new byte[200]));
        int got = 0;
        long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
        while (got == 0) {
          got = consumer.poll(Duration.ofMillis(100)).count();
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("no round trip through " + topic);
          }
        }
        long t1 = System.nanoTime();
        if (i >= 0) {
          rt.add(t1 - t0);
        }
      }
    }
    try (Admin a = Admin.create(stack.kafka("admin"))) {
      a.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
    return rt;
  }

  static long pct(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }
}
