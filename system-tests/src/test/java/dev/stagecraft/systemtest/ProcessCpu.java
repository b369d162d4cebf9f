package dev.stagecraft.systemtest;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU consumed by the processes of a dev stack, per process and per thread, from Linux's {@code
 * /proc/<pid>/task/<tid>/schedstat}: the nanoseconds each thread ran on a CPU and the nanoseconds
 * it waited, runnable, for one. Unlike wall-clock latency, the CPU a run costs does not grow when
 * other work loads the machine, so it is the number to compare between a loaded and a quiet
 * machine; the wait shows how much the stack's threads queued for a core.
 *
 * <p>Take a {@link #snapshot} before and after the work and {@link #report} the difference. Threads
 * are grouped by name with digits replaced by {@code #} (the kernel keeps the first 15 characters
 * of a Java thread's name), so a pool's threads add up. Threads that started and ended between the
 * snapshots (virtual threads' carriers are long-lived; short-lived platform threads are rare here)
 * are not counted. Not thread-safe; Linux only (elsewhere the snapshots are empty).
 */
final class ProcessCpu {
  private ProcessCpu() {}

  /** Run and wait nanoseconds of one thread. */
  record ThreadTime(String process, String thread, long runNanos, long waitNanos) {}

  /** The threads of the watched processes at one instant, by {@code pid/tid}. */
  record Snapshot(Map<String, ThreadTime> threads, long takenNanos) {}

  /**
   * The processes of the stack, by name: this JVM (harness and, in a dev stack, the Kafka broker),
   * the given services, and the PostgreSQL server listening on {@code postgresPort} with its
   * backends (added up as {@code postgres}).
   */
  static Map<String, Long> stackProcesses(Map<String, Long> services, int postgresPort) {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("harness+kafka", ProcessHandle.current().pid());
    pids.putAll(services);
    // the server detaches from this JVM (its parent is init): find it by its port, then its
    // backends by their parent
    String portArgument = "\0-p\0" + postgresPort + "\0";
    ProcessHandle.allProcesses()
        .filter(h -> comm(h.pid()).equals("postgres") && cmdline(h.pid()).contains(portArgument))
        .forEach(
            server -> {
              pids.put("postgres/" + server.pid(), server.pid());
              server.children().forEach(b -> pids.put("postgres/" + b.pid(), b.pid()));
            });
    return pids;
  }

  private static String cmdline(long pid) {
    try {
      return Files.readString(
          Path.of("/proc", Long.toString(pid), "cmdline"), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      return "";
    }
  }

  private static String comm(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "comm"), StandardCharsets.UTF_8)
          .trim();
    } catch (IOException e) {
      return "";
    }
  }

  /** The difference {@code after - before}, added to {@code into} (to sum windows of many runs). */
  static Snapshot accumulate(Snapshot into, Snapshot before, Snapshot after) {
    Map<String, ThreadTime> sum = new HashMap<>(into == null ? Map.of() : into.threads());
    after
        .threads()
        .forEach(
            (id, now) -> {
              ThreadTime then = before.threads().get(id);
              long run = now.runNanos() - (then == null ? 0 : then.runNanos());
              long wait = now.waitNanos() - (then == null ? 0 : then.waitNanos());
              sum.merge(
                  id,
                  new ThreadTime(now.process(), now.thread(), run, wait),
                  (a, b) ->
                      new ThreadTime(
                          a.process(),
                          a.thread(),
                          a.runNanos() + b.runNanos(),
                          a.waitNanos() + b.waitNanos()));
            });
    long span = (into == null ? 0 : into.takenNanos()) + after.takenNanos() - before.takenNanos();
    return new Snapshot(sum, span);
  }

  static Snapshot snapshot(Map<String, Long> processes) {
    Map<String, ThreadTime> threads = new HashMap<>();
    processes.forEach(
        (name, pid) -> {
          String process = name.startsWith("postgres/") ? "postgres" : name;
          Path tasks = Path.of("/proc", Long.toString(pid), "task");
          try (Stream<Path> list = Files.list(tasks)) {
            list.forEach(
                task -> {
                  try {
                    String comm = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8);
                    String[] sched =
                        Files.readString(task.resolve("schedstat"), StandardCharsets.UTF_8)
                            .trim()
                            .split(" ");
                    String thread =
                        process.equals("postgres")
                            ? "postgres"
                            : comm.trim().replaceAll("[0-9]+", "#");
                    threads.put(
                        pid + "/" + task.getFileName(),
                        new ThreadTime(
                            process, thread, Long.parseLong(sched[0]), Long.parseLong(sched[1])));
                  } catch (IOException | RuntimeException e) {
                    // the thread ended while we listed it: not counted
                  }
                });
          } catch (IOException e) {
            // the process ended (or no /proc): not counted
          }
        });
    return new Snapshot(threads, System.nanoTime());
  }

  /**
   * Prints, per process, the CPU time it used between the snapshots divided by {@code runs} (run
   * and runnable-wait milliseconds per run), and its {@code topThreads} busiest thread groups.
   */
  static void report(PrintStream out, Snapshot before, Snapshot after, int runs, int topThreads) {
    report(out, "CPU per run", before, after, runs, topThreads);
  }

  /**
   * Like {@link #report(PrintStream, Snapshot, Snapshot, int, int)} for a sum made by {@link
   * #accumulate} (its {@code takenNanos} is the summed length of the windows).
   */
  static void report(PrintStream out, String title, Snapshot sum, int runs, int topThreads) {
    report(out, title, new Snapshot(Map.of(), 0), sum, runs, topThreads);
  }

  private static void report(
      PrintStream out, String title, Snapshot before, Snapshot after, int runs, int topThreads) {
    Map<String, long[]> byProcess = new LinkedHashMap<>();
    Map<String, Map<String, long[]>> byThread = new LinkedHashMap<>();
    after
        .threads()
        .forEach(
            (id, now) -> {
              ThreadTime then = before.threads().get(id);
              long run = now.runNanos() - (then == null ? 0 : then.runNanos());
              long wait = now.waitNanos() - (then == null ? 0 : then.waitNanos());
              add(byProcess.computeIfAbsent(now.process(), k -> new long[2]), run, wait);
              add(
                  byThread
                      .computeIfAbsent(now.process(), k -> new LinkedHashMap<>())
                      .computeIfAbsent(now.thread(), k -> new long[2]),
                  run,
                  wait);
            });
    double seconds = (after.takenNanos() - before.takenNanos()) / 1e9;
    long total = byProcess.values().stream().mapToLong(v -> v[0]).sum();
    out.printf(
        Locale.ROOT,
        "%s (schedstat, %d runs, %.1f s): stack total %.2f ms/run on CPU"
            + " (%.2f cores busy on average)%n",
        title,
        runs,
        seconds,
        total / 1e6 / runs,
        total / 1e9 / seconds);
    List<Map.Entry<String, long[]>> processes = new ArrayList<>(byProcess.entrySet());
    processes.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> -e.getValue()[0]));
    for (Map.Entry<String, long[]> p : processes) {
      out.printf(
          Locale.ROOT,
          "  %-18s %8.2f ms/run on CPU, %8.2f ms/run waiting for a CPU%n",
          p.getKey(),
          p.getValue()[0] / 1e6 / runs,
          p.getValue()[1] / 1e6 / runs);
      List<Map.Entry<String, long[]>> threads =
          new ArrayList<>(byThread.get(p.getKey()).entrySet());
      threads.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> -e.getValue()[0]));
      for (Map.Entry<String, long[]> t : threads.subList(0, Math.min(topThreads, threads.size()))) {
        out.printf(
            Locale.ROOT,
            "      %-20s %8.2f ms/run on CPU, %8.2f waiting%n",
            t.getKey(),
            t.getValue()[0] / 1e6 / runs,
            t.getValue()[1] / 1e6 / runs);
      }
    }
  }

  private static void add(long[] sums, long run, long wait) {
    sums[0] += run;
    sums[1] += wait;
  }
}
