package dev.stagecraft.chaos.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * How long and how hard to soak.
 *
 * @param workload how long runs are started
 * @param seed the fault schedule's and the workload's seed
 * @param dataDir the soak's data directory (stack, journal, manifest, fault log, report)
 * @param repoDir where {@code <svc>/target/<svc>-app.jar} are
 * @param tenants tenants of the workload
 * @param workspacesPerTenant workspaces of each tenant
 * @param workers runs followed at once
 * @param maxRuns the most runs started (bounded in count as well as in time)
 * @param faultGap the mean time between two faults
 * @param faultKinds the kinds drawn
 * @param bound every run must end this long after the last fault was over
 */
public record SoakOptions(
    Duration workload,
    long seed,
    Path dataDir,
    Path repoDir,
    int tenants,
    int workspacesPerTenant,
    int workers,
    int maxRuns,
    Duration faultGap,
    Set<FaultKind> faultKinds,
    Duration bound) {

  public static final String USAGE =
      "usage: dev/chaos [--minutes N] [--seed S]"
          + " [--faults kill,stop,postgres-restart,kafka-restart,sever,black-hole|none]"
          + " [--fault-gap SECONDS] [--workers N] [--tenants N] [--workspaces N] [--max-runs N]"
          + " [--data-dir DIR]";

  public SoakOptions {
    faultKinds = faultKinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(faultKinds));
  }

  /** The defaults for {@code repoDir}: 10 minutes, seed 1, every fault kind about every 20 s. */
  public static SoakOptions defaults(Path repoDir) {
    return new SoakOptions(
        Duration.ofMinutes(10),
        1,
        null,
        repoDir,
        3,
        4,
        6,
        100_000,
        Duration.ofSeconds(20),
        EnumSet.allOf(FaultKind.class),
        Duration.ofSeconds(120));
  }

  /**
   * Parses the command line of {@code dev/chaos}.
   *
   * @throws IllegalArgumentException naming the option and what it expects
   */
  public static SoakOptions parse(String[] args, Path repoDir) {
    SoakOptions o = defaults(repoDir);
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(name + " needs a value");
      }
      String value = args[++i];
      o =
          switch (name) {
            case "--minutes" ->
                o.withWorkload(Duration.ofSeconds(Math.round(positive(name, value) * 60)));
            case "--seed" -> o.withSeed(parseLong(name, value));
            case "--faults" -> o.withFaultKinds(kinds(value));
            case "--fault-gap" ->
                o.withFaultGap(Duration.ofMillis(Math.round(positive(name, value) * 1000)));
            case "--workers" ->
                o.withCounts(o.tenants, o.workspacesPerTenant, (int) count(name, value), o.maxRuns);
            case "--tenants" ->
                o.withCounts((int) count(name, value), o.workspacesPerTenant, o.workers, o.maxRuns);
            case "--workspaces" ->
                o.withCounts(o.tenants, (int) count(name, value), o.workers, o.maxRuns);
            case "--max-runs" ->
                o.withCounts(o.tenants, o.workspacesPerTenant, o.workers, (int) count(name, value));
            case "--data-dir" -> o.withDataDir(Path.of(value).toAbsolutePath());
            default -> throw new IllegalArgumentException("unknown option " + name);
          };
    }
    return o;
  }

  private static Set<FaultKind> kinds(String value) {
    Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
    if (value.equals("none")) {
      return kinds;
    }
    for (String k : value.split(",", -1)) {
      kinds.add(FaultKind.named(k.strip()));
    }
    return kinds;
  }

  private static double positive(String name, String value) {
    try {
      double d = Double.parseDouble(value);
      if (d > 0) {
        return d;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException(
        name + " expects a positive number, found \"" + value + "\"");
  }

  private static long count(String name, String value) {
    long n = parseLong(name, value);
    if (n < 1) {
      throw new IllegalArgumentException(name + " expects a count of 1 or more, found " + value);
    }
    return n;
  }

  private static long parseLong(String name, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " expects a whole number, found \"" + value + "\"");
    }
  }

  public SoakOptions withWorkload(Duration d) {
    return new SoakOptions(
        d,
        seed,
        dataDir,
        repoDir,
        tenants,
        workspacesPerTenant,
        workers,
        maxRuns,
        faultGap,
        faultKinds,
        bound);
  }

  public SoakOptions withSeed(long s) {
    return new SoakOptions(
        workload,
        s,
        dataDir,
        repoDir,
        tenants,
        workspacesPerTenant,
        workers,
        maxRuns,
        faultGap,
        faultKinds,
        bound);
  }

  public SoakOptions withFaultKinds(Set<FaultKind> k) {
    return new SoakOptions(
        workload,
        seed,
        dataDir,
        repoDir,
        tenants,
        workspacesPerTenant,
        workers,
        maxRuns,
        faultGap,
        k,
        bound);
  }

  public SoakOptions withFaultGap(Duration g) {
    return new SoakOptions(
        workload,
        seed,
        dataDir,
        repoDir,
        tenants,
        workspacesPerTenant,
        workers,
        maxRuns,
        g,
        faultKinds,
        bound);
  }

  public SoakOptions withCounts(int tenants, int workspaces, int workers, int maxRuns) {
    return new SoakOptions(
        workload,
        seed,
        dataDir,
        repoDir,
        tenants,
        workspaces,
        workers,
        maxRuns,
        faultGap,
        faultKinds,
        bound);
  }

  public SoakOptions withDataDir(Path d) {
    return new SoakOptions(
        workload,
        seed,
        d,
        repoDir,
        tenants,
        workspacesPerTenant,
        workers,
        maxRuns,
        faultGap,
        faultKinds,
        bound);
  }

  /** The data directory, a new temporary one when none was given. */
  Path dataDirOrTemp() throws IOException {
    return dataDir != null
        ? Files.createDirectories(dataDir)
        : Files.createTempDirectory("stagecraft-chaos-");
  }
}
