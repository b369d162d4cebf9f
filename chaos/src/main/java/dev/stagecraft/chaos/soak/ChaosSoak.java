package dev.stagecraft.chaos.soak;

import dev.stagecraft.chaos.ChaosCheckMain;
import dev.stagecraft.devstack.DevStack;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The chaos soak ({@code dev/chaos}, issue 30 item 1): the real stack on loopback in a data
 * directory of its own (Kafka and PostgreSQL embedded, state, lock, 2 planners and 3 executors as
 * processes), a workload of several tenants × workspaces × runs through the public API, faults on a
 * schedule drawn from the seed ({@link FaultPlan}), then a quiet period, the history gathered and
 * checked by the chaos checker ({@link ChaosCheckMain}), and the report written to the data
 * directory and printed. Bounded in time and in runs; everything it started is stopped at the end,
 * on failure too (a shutdown hook covers an interrupted JVM). Exit status 0: no violation; 1:
 * violations (the report shows each with its evidence); 2: the soak could not be carried out.
 */
public final class ChaosSoak {
  /** Settings given to every service: short leases so that stopped processes are fenced soon. */
  static final Map<String, String> SETTINGS =
      Map.of(
          "STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT", "1s",
          "STAGECRAFT_PLANNER_INSTANCE_LEASE", "10s",
          "STAGECRAFT_PLANNER_ACTION_LEASE", "8s",
          "STAGECRAFT_EXECUTOR_HEARTBEAT_INTERVAL", "1s",
          "STAGECRAFT_EXECUTOR_SESSION_TIMEOUT", "6s");

  /** A stop lasts longer than the longest lease above (the action lease) plus a margin. */
  static final Duration STOP_HOLD = Duration.ofSeconds(12);

  static final Duration QUIET = Duration.ofSeconds(10);

  private ChaosSoak() {}

  /** What a soak did and found. */
  public record Result(
      int exitCode,
      Path dataDir,
      int runsStarted,
      Map<String, Integer> runsByStatus,
      int runsUnfinished,
      Map<String, Integer> faultsByKind,
      Path report,
      String reportText) {}

  public static void main(String[] args) {
    Path repo = Path.of(System.getProperty("stagecraft.repo", ".")).toAbsolutePath().normalize();
    SoakOptions options;
    try {
      options = SoakOptions.parse(args, repo);
    } catch (IllegalArgumentException e) {
      System.err.println("dev/chaos: " + e.getMessage());
      System.err.println(SoakOptions.USAGE);
      System.exit(2);
      return;
    }
    int code;
    try {
      code = run(options, System.out).exitCode();
    } catch (Exception e) {
      System.err.println("dev/chaos: the soak could not be carried out: " + e);
      code = 2;
    }
    System.exit(code);
  }

  /**
   * The files of one soak: the shared directory of the sandboxes and their journal, the run
   * manifest (tokens), the fault log, the reads, the doors' log, and the report.
   */
  private record SoakFiles(
      Path root,
      Path shared,
      Path journal,
      Path manifest,
      Path faultLog,
      Path reads,
      Path doors,
      Path report) {

    static SoakFiles create(Path root) throws IOException {
      Path shared = SoakCluster.sharedDirectory(root);
      Path journal = shared.resolve("journal");
      Files.writeString(journal, "");
      // every sandbox runs as a uid of its own: each must be able to append
      Files.setAttribute(journal, "unix:mode", 0666);
      return new SoakFiles(
          root,
          shared,
          journal,
          root.resolve("tokens"),
          root.resolve("faults"),
          root.resolve("reads"),
          root.resolve("doors"),
          root.resolve("report.md"));
    }
  }

  /** Runs a whole soak. */
  public static Result run(SoakOptions o, PrintStream out) throws Exception {
    SoakFiles files = SoakFiles.create(o.dataDirOrTemp());
    List<PlannedFault> plan =
        FaultPlan.draw(o.seed(), o.workload(), o.faultGap(), o.faultKinds(), STOP_HOLD);
    out.println(
        "soak: seed "
            + o.seed()
            + ", "
            + o.workload().toSeconds()
            + " s of runs, "
            + plan.size()
            + " faults planned, data in "
            + files.root());
    plan.forEach(f -> out.println("soak:   " + f));

    SoakCluster cluster =
        SoakCluster.start(
            files.root().resolve("stack"),
            o.repoDir(),
            files.shared(),
            files.root().resolve("hosts"),
            SETTINGS,
            2,
            3,
            out);
    Thread hook = new Thread(cluster::close, "soak-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return soak(o, out, files, plan, cluster);
    } finally {
      cluster.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs (or ran) already
      }
    }
  }

  /** On a started cluster: the workload under the faults, the quiet period, then the check. */
  private static Result soak(
      SoakOptions o, PrintStream out, SoakFiles files, List<PlannedFault> plan, SoakCluster cluster)
      throws Exception {
    DevStack stack = cluster.stack();
    out.println("soak: stack up: planners " + cluster.plannerUrls());
    SoakApi api = new SoakApi(cluster.plannerUrls(), Duration.ofSeconds(180));
    Workload workload =
        new Workload(
            api,
            files.journal(),
            files.manifest(),
            files.reads(),
            o.seed(),
            o.workspacesPerTenant(),
            out);
    workload.sshHosts(cluster.network().sshHosts());
    DoorRecorder doors = new DoorRecorder(files.doors());
    Duration runPatience = o.bound().plusMinutes(3);
    addDoors(o, out, files, stack, api, workload, doors, runPatience);
    workload.setUp(stack.credentials().orElseThrow().token(), o.tenants());

    Instant origin = Instant.now();
    FaultInjector injector =
        new FaultInjector(cluster, plan, files.faultLog(), out, Clock.systemUTC());
    try (injector) {
      injector.start(origin);
      workload.run(
          o.workers(),
          origin.plus(o.workload()),
          injector::pending,
          origin.plus(o.workload().multipliedBy(2).plusMinutes(5)),
          o.maxRuns(),
          runPatience,
          injector::lastOver,
          o.bound());
      doors.close();
    } // stops the injection (on failure too) before the stack is stopped
    out.println(
        "soak: workload done: "
            + workload.started()
            + " runs started, ended "
            + workload.outcomes()
            + ", "
            + workload.unfinished()
            + " not ended, "
            + injector.injected().size()
            + " faults; quiet for "
            + QUIET.toSeconds()
            + " s");
    workload.doorSummaries().forEach((k, v) -> out.println("soak: " + k + ": " + v));
    Thread.sleep(QUIET.toMillis()); // the quiet period: last events published, leases lapsed

    int code = check(o, out, files, cluster, workload.started());
    String text =
        Files.isRegularFile(files.report())
            ? Files.readString(files.report(), StandardCharsets.UTF_8)
            : "";
    out.println(text);
    if (injector.failure() != null) {
      out.println("soak: fault injection stopped early: " + injector.failure());
      code = Math.max(code, 2);
    }
    Map<String, Integer> faults = new TreeMap<>();
    injector.injected().forEach(f -> faults.merge(f.kind().logName(), 1, Integer::sum));
    return new Result(
        code,
        files.root(),
        workload.started(),
        workload.outcomes(),
        workload.unfinished(),
        faults,
        files.report(),
        text);
  }

  /** The workload's other doors: the Terraform HTTP backend and ChatOps over Kafka. */
  private static void addDoors(
      SoakOptions o,
      PrintStream out,
      SoakFiles files,
      DevStack stack,
      SoakApi api,
      Workload workload,
      DoorRecorder doors,
      Duration runPatience)
      throws IOException {
    workload.add(new BackendDoor(api, stack.info().state(), doors, runPatience, out));
    workload.add(
        new ChatOpsDoor(
            api,
            stack.info().kafka(),
            stack.layout().kafkaClientPropertiesFile("trigger"),
            doors,
            files.journal(),
            workload::manifest,
            runPatience,
            o.seed(),
            out));
  }

  /** Gathers the history and checks it with the chaos checker, which writes the report. */
  private static int check(
      SoakOptions o, PrintStream out, SoakFiles files, SoakCluster cluster, int runsStarted)
      throws Exception {
    DevStack stack = cluster.stack();
    Map<String, String> db = stack.databaseEnv();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--jdbc-url", db.get("STAGECRAFT_DB_URL"),
                "--db-user", db.get("STAGECRAFT_DB_USER"),
                "--kafka", stack.info().kafka(),
                "--kafka-config", stack.layout().kafkaClientPropertiesFile("admin").toString(),
                "--journal", "executors=" + files.journal(),
                "--manifest", files.manifest().toString(),
                "--faults", files.faultLog().toString(),
                "--reads", files.reads().toString(),
                "--doors", files.doors().toString(),
                "--bound", Long.toString(o.bound().toSeconds()),
                "--title",
                    "Chaos soak — seed "
                        + o.seed()
                        + ", "
                        + o.workload().toSeconds()
                        + " s, "
                        + runsStarted
                        + " runs started",
                "--out", files.report().toString()));
    for (SoakNetwork.SshHost h : cluster.network().sshHosts()) {
      args.addAll(List.of("--journal", h.name() + "=" + h.journal()));
    }
    return ChaosCheckMain.run(
        args.toArray(String[]::new),
        out,
        out,
        Map.of(ChaosCheckMain.PASSWORD_ENV, db.get("STAGECRAFT_DB_PASSWORD")),
        Clock.systemUTC());
  }
}
