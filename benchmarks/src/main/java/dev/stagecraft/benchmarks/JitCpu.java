package dev.stagecraft.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much CPU the JIT compilers of other processes (a service under measurement) have used, so a
 * benchmark can show whether its warm-up was long enough: a service whose compiler threads still
 * work during the measured rounds is measured while its code is being compiled, on the same cores.
 */
final class JitCpu {
  private JitCpu() {}

  /**
   * CPU time (ns) the JIT compiler threads ({@code C1 CompilerThre…}, {@code C2 CompilerThre…}) of
   * the given processes have used so far, from {@code /proc/<pid>/task/<tid>/schedstat}; 0 for a
   * process whose {@code /proc} entry cannot be read (not Linux, ended). A compiler thread that
   * ended in between takes its time with it, so differences are lower bounds.
   */
  static long compilerNanos(long... pids) {
    long sum = 0;
    for (long pid : pids) {
      try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
        for (Path task : tasks.toList()) {
          try {
            if (Files.readString(task.resolve("comm")).contains("CompilerThre")) {
              sum += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ", -1)[0]);
            }
          } catch (IOException | RuntimeException e) {
            // the thread ended meanwhile
          }
        }
      } catch (IOException e) {
        // not readable: counts as nothing
      }
    }
    return sum;
  }
}
