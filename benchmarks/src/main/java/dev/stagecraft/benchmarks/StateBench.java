package dev.stagecraft.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Map;

/** What the state benchmarks ({@link StateBenchmark}) share: output, timing, clean-up. */
final class StateBench {
  static final PrintStream OUT = System.out;
  static final String TENANT = "bench";

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  /** The client CPU per operation of each measured series (by identity). */
  static final Map<double[], Double> CPU_PER_OP = new IdentityHashMap<>();

  private StateBench() {}

  /** One operation of a measured series: its {@code i}-th. */
  interface Op {
    void run(int i) throws SQLException;
  }

  /**
   * Runs {@code n} rounds; in every round each of {@code ops} runs once (its {@code i}-th
   * operation), starting with a different one each round. Returns the latency in nanoseconds of
   * every operation of each series, and keeps each series' client CPU per operation ({@link
   * #CPU_PER_OP}).
   */
  static double[][] interleaved(int n, Op... ops) throws SQLException {
    double[][] nanos = new double[ops.length][n];
    long[] cpu = new long[ops.length];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < ops.length; k++) {
        int s = (i + k) % ops.length;
        long cpuStart = CPU.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        ops[s].run(i);
        nanos[s][i] = System.nanoTime() - start;
        cpu[s] += CPU.getCurrentThreadCpuTime() - cpuStart;
      }
    }
    for (int s = 0; s < ops.length; s++) {
      CPU_PER_OP.put(nanos[s], (double) cpu[s] / n);
    }
    return nanos;
  }

  static double percentile(double[] nanos, int p) {
    double[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }

  /** Deletes {@code dir} and everything under it. */
  static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
