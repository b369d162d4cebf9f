package dev.stagecraft.systemtest;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Pipeline overhead: an apply of N independent resources whose command is {@code true}, through the
 * whole system (CLI → planner → lock → state → Kafka → executor → state → planner), against running
 * the same N commands directly with the same parallelism in this process. Both are measured in the
 * same JVM on the same machine; the ratio is what {@code docs/benchmarks.md} reports. With {@code
 * tracing}, the same on an untraced stack, then a traced one (the tracing overhead). Run with
 * {@code dev/bench} (not part of the test suite: it asserts no timing).
 */
public final class PipelineOverheadBenchmark {
  private PipelineOverheadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int resources = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    // a third argument "tracing": the same applies on a stack without tracing, then on one whose
    // services export every span (ADR 0083, sampled at 100%) to an OTLP receiver in this process
    boolean tracing = args.length > 2 && args[2].equals("tracing");
    java.io.PrintStream report = System.out;
    SharedStack plain =
        tracing ? SharedStack.dedicated("bench-untraced", Map.of()) : SharedStack.get();
    double untraced = measure(plain, resources, rounds, report);
    if (tracing) {
      try (OtlpReceiver receiver = new OtlpReceiver()) {
        SharedStack traced =
            SharedStack.dedicated(
                "bench-traced", Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()));
        double withTraces = measure(traced, resources, rounds, report);
        report.printf(
            Locale.ROOT,
            "tracing on (100%%, %d spans received) / off: pipeline median %.1f / %.1f ms = %.2fx%n",
            receiver.spans().size(),
            withTraces,
            untraced,
            withTraces / untraced);
      }
    }
    System.exit(0);
  }

  /** Applies on {@code stack} for {@code rounds} rounds after one warm-up; the pipeline median. */
  private static double measure(
      SharedStack stack, int resources, int rounds, java.io.PrintStream report) throws Exception {
    int parallelism = 10;
    StringBuilder config = new StringBuilder("variable \"round\" {\n}\n");
    for (int i = 0; i < resources; i++) {
      config.append(
          """
          resource "stateful_provisioning" "r%d" {
            state_key = var.round
            provisioner "local-exec" {
              command = "true"
            }
          }
          """
              .formatted(i));
    }
    Path dir = stack.configDir("bench", config.toString());
    List<Long> pipeline = new ArrayList<>();
    List<Long> direct = new ArrayList<>();
    for (int round = -1; round < rounds; round++) {
      // round -1 warms both paths up and is not counted
      long t0 = System.nanoTime();
      CliResult result =
          stack.cli(dir, "apply", "-workspace=bench", "-auto-approve", "-var", "round=r" + round);
      long t1 = System.nanoTime();
      if (result.exitCode() != 0) {
        throw new IllegalStateException("apply failed: " + result.all());
      }
      long t2 = System.nanoTime();
      runDirectly(resources, parallelism);
      long t3 = System.nanoTime();
      if (round >= 0) {
        pipeline.add(t1 - t0);
        direct.add(t3 - t2);
      }
    }
    stack.stop();
    double p = median(pipeline) / 1e6;
    double d = median(direct) / 1e6;
    report.printf(
        Locale.ROOT,
        "resources=%d parallelism=%d rounds=%d%npipeline median %.1f ms (min %.1f)%n"
            + "direct   median %.1f ms (min %.1f)%nratio %.1fx%n",
        resources,
        parallelism,
        rounds,
        p,
        min(pipeline) / 1e6,
        d,
        min(direct) / 1e6,
        p / d);
    return p;
  }

  static void runDirectly(int commands, int parallelism) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(parallelism);
    try {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int i = 0; i < commands; i++) {
        futures.add(
            pool.submit(() -> new ProcessBuilder("/bin/sh", "-c", "true").start().waitFor()));
      }
      for (Future<Integer> f : futures) {
        if (f.get() != 0) {
          throw new IllegalStateException("true failed");
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  static double median(List<Long> values) {
    List<Long> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
  }

  static double min(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).min().orElse(0);
  }
}
