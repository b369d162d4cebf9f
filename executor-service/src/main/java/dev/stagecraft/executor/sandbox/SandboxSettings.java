package dev.stagecraft.executor.sandbox;

import java.nio.file.Path;
import java.util.List;

/**
 * How {@code local-exec} commands are boxed (executor-service/README.md, "The local-exec sandbox").
 *
 * @param directory where the sandbox keeps its uid leases ({@code uids/}) and each action's private
 *     file system ({@code sessions/<uid>}); shared by the executors of one host, owned by root
 * @param firstUid the first uid of the range sandboxes run as
 * @param uidCount how many uids the range holds: the most sandboxes all executors of the host run
 *     at once
 * @param memoryBytes memory of one action's commands together (cgroup), 0 = no limit
 * @param diskBytes size of an action's private file system (working directory, home and {@code
 *     /tmp} together; memory-backed)
 * @param processes processes of one action at once (cgroup {@code pids.max} and {@code
 *     RLIMIT_NPROC} of its uid)
 * @param cpus CPU time per wall-clock second of one action's commands (cgroup CPU quota), 0 = no
 *     limit
 * @param systemPaths host directories mounted read-only into every sandbox (those that exist)
 * @param sharedPaths host directories mounted read-write, at the same path, into every sandbox:
 *     shared by every tenant's commands, so empty on a multi-tenant installation (a single-tenant
 *     one may keep a deploy journal or a cache there; the system tests keep their journals there)
 */
public record SandboxSettings(
    Path directory,
    int firstUid,
    int uidCount,
    long memoryBytes,
    long diskBytes,
    int processes,
    double cpus,
    List<String> systemPaths,
    List<String> sharedPaths) {

  public static final Path DEFAULT_DIRECTORY = Path.of("/run/stagecraft/sandbox");
  public static final int DEFAULT_FIRST_UID = 200_000;
  public static final int DEFAULT_UID_COUNT = 1_000;
  public static final long DEFAULT_MEMORY = 2L << 30;
  public static final long DEFAULT_DISK = 512L << 20;
  public static final int DEFAULT_PROCESSES = 512;
  public static final double DEFAULT_CPUS = 1.0;
  public static final List<String> DEFAULT_SYSTEM_PATHS =
      List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt");

  public SandboxSettings {
    if (firstUid < 1000 || uidCount < 1 || (long) firstUid + uidCount > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "STAGECRAFT_EXECUTOR_SANDBOX_UIDS must be a range FIRST-LAST of unprivileged uids (FIRST"
              + " at least 1000), e.g. 200000-200999; got first "
              + firstUid
              + ", count "
              + uidCount);
    }
    if (memoryBytes < 0 || diskBytes < (1 << 20) || processes < 8 || cpus < 0) {
      throw new IllegalArgumentException(
          "sandbox limits out of range: memory "
              + memoryBytes
              + " (0 = none), disk "
              + diskBytes
              + " (at least 1 MiB), processes "
              + processes
              + " (at least 8), cpus "
              + cpus
              + " (0 = none)");
    }
    systemPaths = List.copyOf(systemPaths);
    sharedPaths = List.copyOf(sharedPaths);
    for (String p : sharedPaths) {
      if (!p.startsWith("/")) {
        throw new IllegalArgumentException(
            "STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS must list absolute paths; got " + p);
      }
    }
  }

  /** The defaults above, kept under {@code directory}. */
  public static SandboxSettings defaults(Path directory) {
    return new SandboxSettings(
        directory,
        DEFAULT_FIRST_UID,
        DEFAULT_UID_COUNT,
        DEFAULT_MEMORY,
        DEFAULT_DISK,
        DEFAULT_PROCESSES,
        DEFAULT_CPUS,
        DEFAULT_SYSTEM_PATHS,
        List.of());
  }

  /** The same settings with another uid range (tests take a range of their own). */
  public SandboxSettings withUids(int first, int count) {
    return new SandboxSettings(
        directory, first, count, memoryBytes, diskBytes, processes, cpus, systemPaths, sharedPaths);
  }

  /** The same settings with other limits. */
  public SandboxSettings withLimits(long memory, long disk, int processCount, double cpuShare) {
    return new SandboxSettings(
        directory,
        firstUid,
        uidCount,
        memory,
        disk,
        processCount,
        cpuShare,
        systemPaths,
        sharedPaths);
  }

  /** The same settings with other shared paths. */
  public SandboxSettings withSharedPaths(List<String> paths) {
    return new SandboxSettings(
        directory, firstUid, uidCount, memoryBytes, diskBytes, processes, cpus, systemPaths, paths);
  }

  /**
   * Parses {@code FIRST-LAST} (inclusive), e.g. {@code 200000-200999}.
   *
   * @return {first, count}
   */
  public static int[] parseUidRange(String text) {
    String[] parts = text.strip().split("-");
    try {
      if (parts.length == 2) {
        int first = Integer.parseInt(parts[0].strip());
        int last = Integer.parseInt(parts[1].strip());
        if (last >= first) {
          return new int[] {first, last - first + 1};
        }
      }
    } catch (NumberFormatException e) {
      // falls through to the error below
    }
    throw new IllegalArgumentException(
        "STAGECRAFT_EXECUTOR_SANDBOX_UIDS must be FIRST-LAST, e.g. 200000-200999; got " + text);
  }

  /** {@code 512 MiB}, {@code 2 GiB}, {@code 300 bytes}: for messages. */
  static String bytes(long n) {
    if (n >= (1L << 30) && n % (1L << 30) == 0) {
      return (n >> 30) + " GiB";
    }
    if (n >= (1L << 20) && n % (1L << 20) == 0) {
      return (n >> 20) + " MiB";
    }
    if (n >= (1L << 10) && n % (1L << 10) == 0) {
      return (n >> 10) + " KiB";
    }
    return n + " bytes";
  }
}
