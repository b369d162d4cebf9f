package dev.stagecraft.executor.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux control groups (version 1) that hold each action's memory, process count and CPU share:
 * one group per sandbox uid under the executor's own group in each of the {@code memory}, {@code
 * pids} and {@code cpu} hierarchies that this process may write. A hierarchy that is not mounted or
 * not writable is left out, and its limit is not applied (the sandbox's {@code /health} detail says
 * which apply).
 *
 * <p>Version 2 (the unified hierarchy) only allows processes in leaf groups, which needs the
 * executor to be moved into a group of its own first; it is not used yet, and a host with only
 * version 2 runs sandboxes with the {@code RLIMIT_NPROC} limit alone (see {@link
 * BubblewrapSandbox}).
 *
 * <p>Concurrency: immutable after {@link #detect}; {@link Group}s are used by one thread each.
 */
final class ControlGroups {
  private static final Logger LOG = LoggerFactory.getLogger(ControlGroups.class);
  static final String PREFIX = "stagecraft-sandbox-";
  private static final long CPU_PERIOD_US = 100_000;

  /** Controller name → the directory of this process's own group in that hierarchy. */
  private final Map<String, Path> own;

  private ControlGroups(Map<String, Path> own) {
    this.own = Map.copyOf(own);
  }

  /** No control groups: no memory, process-count or CPU limit beyond the sandbox's rlimits. */
  static ControlGroups none() {
    return new ControlGroups(Map.of());
  }

  /**
   * Finds the writable version 1 hierarchies among {@code memory}, {@code pids} and {@code cpu}
   * from {@code /proc/self/mountinfo} and {@code /proc/self/cgroup}.
   */
  static ControlGroups detect() {
    Map<String, Path> found = new LinkedHashMap<>();
    try {
      Map<String, String> ownPaths = ownPaths(Files.readAllLines(Path.of("/proc/self/cgroup")));
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        mountOf(line, ownPaths).forEach(found::putIfAbsent);
      }
    } catch (IOException e) {
      LOG.warn("cannot read this process's control groups; sandbox limits use rlimits only", e);
      return none();
    }
    found.entrySet().removeIf(e -> !writable(e.getValue()));
    return new ControlGroups(found);
  }

  /** "4:memory:/a/b" lines → controller → own path ("/a/b"). */
  static Map<String, String> ownPaths(List<String> procSelfCgroup) {
    Map<String, String> paths = new LinkedHashMap<>();
    for (String line : procSelfCgroup) {
      String[] parts = line.split(":", 3);
      if (parts.length == 3 && !parts[1].isEmpty()) {
        for (String controller : parts[1].split(",")) {
          paths.put(controller, parts[2]);
        }
      }
    }
    return paths;
  }

  /**
   * The controllers a mountinfo line mounts, with this process's group directory in each: {@code 36
   * 25 0:31 / /sys/fs/cgroup/memory rw,relatime shared:12 - cgroup cgroup rw,memory}.
   */
  static Map<String, Path> mountOf(String mountinfoLine, Map<String, String> ownPaths) {
    int dash = mountinfoLine.indexOf(" - ");
    if (dash < 0) {
      return Map.of();
    }
    String[] before = mountinfoLine.substring(0, dash).split(" ");
    String[] after = mountinfoLine.substring(dash + 3).split(" ");
    if (before.length < 5 || after.length < 3 || !after[0].equals("cgroup")) {
      return Map.of();
    }
    String root = before[3];
    Path mountPoint = Path.of(before[4]);
    Map<String, Path> result = new LinkedHashMap<>();
    for (String option : after[2].split(",")) {
      if (!List.of("memory", "pids", "cpu").contains(option) || !ownPaths.containsKey(option)) {
        continue;
      }
      String ownPath = ownPaths.get(option);
      if (!ownPath.startsWith(root)) {
        continue; // our group is not inside this mount's view
      }
      String relative = ownPath.substring(root.length()).replaceFirst("^/+", "");
      result.put(option, relative.isEmpty() ? mountPoint : mountPoint.resolve(relative));
    }
    return result;
  }

  private static boolean writable(Path dir) {
    Path probe = dir.resolve(PREFIX + "probe-" + ProcessHandle.current().pid());
    try {
      Files.createDirectory(probe);
      Files.delete(probe);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** The controllers in use: a subset of memory, pids, cpu. */
  List<String> controllers() {
    return List.copyOf(own.keySet());
  }

  /**
   * Creates (after removing what a dead holder of the uid left) the groups of one sandbox uid, with
   * the given limits; 0 memory or cpus = none.
   */
  Group create(int uid, long memoryBytes, int processes, double cpus) throws IOException {
    Map<String, Path> dirs = new LinkedHashMap<>();
    for (Map.Entry<String, Path> e : own.entrySet()) {
      Path dir = e.getValue().resolve(PREFIX + uid);
      if (Files.isDirectory(dir)) {
        removeGroup(dir); // left by an executor that died holding this uid
      }
      Files.createDirectory(dir);
      dirs.put(e.getKey(), dir);
    }
    Group group = new Group(dirs);
    try {
      if (memoryBytes > 0) {
        group.write("memory", "memory.limit_in_bytes", Long.toString(memoryBytes));
        group.writeIfPresent("memory", "memory.memsw.limit_in_bytes", Long.toString(memoryBytes));
      }
      group.write("pids", "pids.max", Integer.toString(processes));
      if (cpus > 0) {
        group.write("cpu", "cpu.cfs_period_us", Long.toString(CPU_PERIOD_US));
        group.write("cpu", "cpu.cfs_quota_us", Long.toString(Math.round(cpus * CPU_PERIOD_US)));
      }
    } catch (IOException | RuntimeException e) {
      group.close();
      throw e;
    }
    return group;
  }

  /** One sandbox's groups. */
  static final class Group implements AutoCloseable {
    private final Map<String, Path> dirs;

    private Group(Map<String, Path> dirs) {
      this.dirs = dirs;
    }

    /** The {@code cgroup.procs} files a process writes its pid to, to enter every group. */
    List<Path> procsFiles() {
      return dirs.values().stream().map(d -> d.resolve("cgroup.procs")).toList();
    }

    private void write(String controller, String file, String value) throws IOException {
      Path dir = dirs.get(controller);
      if (dir != null) {
        Files.writeString(dir.resolve(file), value);
      }
    }

    private void writeIfPresent(String controller, String file, String value) throws IOException {
      Path dir = dirs.get(controller);
      if (dir != null && Files.exists(dir.resolve(file))) {
        Files.writeString(dir.resolve(file), value);
      }
    }

    /** How often the kernel's OOM killer killed a process of the group. */
    long oomKills() {
      return counter("memory", "memory.oom_control", "oom_kill");
    }

    /** How often a fork failed at {@code pids.max}. */
    long processLimitHits() {
      return counter("pids", "pids.events", "max");
    }

    private long counter(String controller, String file, String key) {
      Path dir = dirs.get(controller);
      if (dir == null) {
        return 0;
      }
      try {
        for (String line : Files.readAllLines(dir.resolve(file))) {
          String[] kv = line.strip().split("\\s+");
          if (kv.length == 2 && kv[0].equals(key)) {
            return Long.parseLong(kv[1]);
          }
        }
      } catch (IOException | NumberFormatException e) {
        LOG.warn("cannot read {} of {}", file, dir, e);
      }
      return 0;
    }

    /**
     * The limits the group's processes ran into since the counters read {@code oomBefore} and
     * {@code pidsBefore}, as one sentence; empty when none.
     */
    Optional<String> hits(long memoryBytes, int processes, long oomBefore, long pidsBefore) {
      List<String> hits = new ArrayList<>();
      if (oomKills() > oomBefore) {
        hits.add(
            "it exceeded the memory limit of "
                + SandboxSettings.bytes(memoryBytes)
                + " (STAGECRAFT_EXECUTOR_SANDBOX_MEMORY) and the kernel killed it");
      }
      if (processLimitHits() > pidsBefore) {
        hits.add(
            "it reached the limit of "
                + processes
                + " processes at once (STAGECRAFT_EXECUTOR_SANDBOX_PROCESSES): a fork failed");
      }
      return hits.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", hits));
    }

    /** Kills whatever still runs in the groups and removes them. */
    @Override
    public void close() {
      for (Path dir : dirs.values()) {
        try {
          removeGroup(dir);
        } catch (IOException e) {
          LOG.warn("could not remove control group {}", dir, e);
        }
      }
    }
  }

  /**
   * Kills the processes of a group (they are a sandbox's: never the executor) and removes it. A
   * process that was killed, or ended just before, leaves the group a moment later: the group is
   * looked at again after 1, 2, 4 … 100 ms (about 5 s in all).
   */
  private static void removeGroup(Path dir) throws IOException {
    long pause = 1;
    for (int attempt = 0; attempt < 60; attempt++) {
      List<ProcessHandle> left = new ArrayList<>();
      for (String pid : Files.readAllLines(dir.resolve("cgroup.procs"))) {
        ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(left::add);
      }
      if (left.isEmpty()) {
        try {
          Files.delete(dir);
          return;
        } catch (IOException busy) {
          // a process is still leaving the group: look again
        }
      }
      left.forEach(ProcessHandle::destroyForcibly);
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      pause = Math.min(pause * 2, 100);
    }
    Files.delete(dir); // throws with the reason when it is still busy
  }

  /** For messages: "memory, pids, cpu" or "none". */
  @Override
  public String toString() {
    return own.isEmpty() ? "none" : String.join(", ", own.keySet());
  }
}
