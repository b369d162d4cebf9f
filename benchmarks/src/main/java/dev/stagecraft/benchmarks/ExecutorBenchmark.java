package dev.stagecraft.benchmarks;

import dev.stagecraft.executor.adapter.ssh.SshjRemoteConnector;
import dev.stagecraft.executor.step.ActionResult;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.executor.step.RemoteSession;
import dev.stagecraft.executor.step.RunConnectionPool;
import dev.stagecraft.executor.step.RunConnections;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import dev.stagecraft.sshtestkit.OpenSshServer;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The executor against baselines run in the same process on the same machine; prints tables for
 * docs/benchmarks.md. Not a test: it asserts nothing about time.
 *
 * <ul>
 *   <li>{@code ssh [COMMANDS] [ROUNDS]}: COMMANDS sequential {@code true} commands to one loopback
 *       OpenSSH sshd (started here with its own config) over the executor's pooled connection
 *       ({@link RunConnectionPool}: each command borrows the connection, opens its own channel and
 *       gives it back, as a step does), against OpenSSH's client with {@code ControlMaster} on the
 *       same host, and against a cold sshj connection per command (connect, authenticate, exec,
 *       close). The first connection of the pool and of the ControlMaster is made before timing and
 *       reported on its own. Also: the same commands as whole {@code remote-exec} steps through
 *       {@link ActionRunner} (upload the script over SFTP, run it, remove it), for information.
 *   <li>{@code local-exec [STEPS] [PARALLELISM] [ROUNDS]}: STEPS actions of one {@code local-exec
 *       "true"} step through {@link ActionRunner} with the executor's concurrency mechanism (a
 *       virtual thread per action, at most PARALLELISM at once through a semaphore acquired before
 *       the action is handed over, as {@code DispatchedActionHandler} does; no Kafka), against a
 *       bare pool of PARALLELISM platform threads running {@code /bin/sh -c true} with {@link
 *       ProcessBuilder}.
 * </ul>
 *
 * <p>Each measurement: one warm-up round, then ROUNDS measured rounds; median and p90 over the
 * rounds, and the ratio of the medians.
 */
public final class ExecutorBenchmark {
  private static final PrintStream OUT = System.out;

  private ExecutorBenchmark() {}

  public static void main(String[] args) throws Exception {
    String what = args.length > 0 ? args[0] : "";
    switch (what) {
      case "ssh" -> ssh(intArg(args, 1, 100), intArg(args, 2, 5));
      case "local-exec" ->
          localExec(intArg(args, 1, 1000), intArg(args, 2, 16), intArg(args, 3, 5));
      default -> {
        System.err.println(
            "usage: ExecutorBenchmark ssh [COMMANDS] [ROUNDS]"
                + " | local-exec [STEPS] [PARALLELISM] [ROUNDS]");
        System.exit(2);
      }
    }
  }

  private static int intArg(String[] args, int index, int fallback) {
    return args.length > index ? Integer.parseInt(args[index]) : fallback;
  }

  /** One round of work; {@link #measure} times it. */
  @FunctionalInterface
  interface Round {
    void run() throws Exception;
  }

  record Stats(double medianMs, double p90Ms) {}

  static Stats measure(int rounds, Round round) throws Exception {
    round.run(); // warm-up
    double[] ms = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      long start = System.nanoTime();
      round.run();
      ms[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(ms);
    return new Stats(percentile(ms, 50), percentile(ms, 90));
  }

  /** Nearest-rank percentile of sorted values. */
  static double percentile(double[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  static String row(String name, Stats s, int n) {
    return String.format(
        Locale.ROOT,
        "| %s | %.0f ms | %.0f ms | %.2f ms |",
        name,
        s.medianMs(),
        s.p90Ms(),
        s.medianMs() / n);
  }

  // ---------------------------------------------------------------- ssh

  /**
   * The kit's OpenSSH sshd, tuned for measuring: many concurrent handshakes allowed, and no {@code
   * ~/.bashrc}: Debian's bash sources it when sshd starts it (SSH_SOURCE_BASHRC) unless it is a
   * nested shell, and a slow one (pyenv init here: ~250 ms) would be a constant in every variant
   * and hide what is measured.
   */
  private static OpenSshServer benchmarkSshd() {
    return new OpenSshServer(
        "127.0.0.1", () -> List.of("MaxStartups 100:30:200", "SetEnv SHLVL=1"));
  }

  static void ssh(int commands, int rounds) throws Exception {
    try (OpenSshServer sshd = benchmarkSshd().start()) {
      SshConnection connection =
          new SshConnection(
              "127.0.0.1",
              sshd.port(),
              sshd.user(),
              null,
              sshd.ed25519Key(),
              null,
              sshd.hostKey(),
              30,
              null);
      SshjRemoteConnector sshj = new SshjRemoteConnector();
      Pooled pooled = pooled(sshd, connection, sshj, commands, rounds);
      Timed master = controlMaster(sshd, commands, rounds);
      Stats cold = cold(connection, sshj, commands, rounds);
      printSsh(commands, rounds, pooled, master, cold);
    }
  }

  /** Rounds of a variant whose first connection is made (and timed) before them. */
  record Timed(Stats stats, double firstMs) {}

  /** The pooled commands, and the same commands as remote-exec steps on that pool. */
  record Pooled(Timed commands, Stats steps) {}

  private static Pooled pooled(
      OpenSshServer sshd,
      SshConnection connection,
      SshjRemoteConnector sshj,
      int commands,
      int rounds)
      throws Exception {
    RemoteSession.LineSink discard = (stream, line) -> {};
    // pooled: the first connection is made (and timed) before the rounds
    RunConnectionPool pool =
        new RunConnectionPool(sshj, Duration.ofMinutes(10), Duration.ofMinutes(10), 10);
    RunConnections lease = pool.open("bench", "run-1");
    long firstPooled = System.nanoTime();
    lease.connect(connection, n -> {}).close();
    double firstPooledMs = (System.nanoTime() - firstPooled) / 1e6;
    Stats pooled =
        measure(
            rounds,
            () -> {
              for (int i = 0; i < commands; i++) {
                try (RemoteSession session = lease.connect(connection, n -> {})) {
                  check(session.exec("true", discard, null), "pooled");
                }
              }
            });

    // the same commands as remote-exec steps through the runner, on the same pooled connection
    ActionRunner runner = new ActionRunner(sshd.dir(), RemoteConnector.UNAVAILABLE);
    ActionDispatched action = remoteExecAction(connection);
    Stats steps =
        measure(
            rounds,
            () -> {
              for (int i = 0; i < commands; i++) {
                ActionResult result = runner.run(action, (s, st, l) -> {}, lease);
                if (!result.isSucceeded()) {
                  throw new IllegalStateException("remote-exec step failed: " + result.error());
                }
              }
            });
    lease.close();
    pool.close();
    return new Pooled(new Timed(pooled, firstPooledMs), steps);
  }

  /** OpenSSH ControlMaster: the first ssh starts the master (timed on its own). */
  private static Timed controlMaster(OpenSshServer sshd, int commands, int rounds)
      throws Exception {
    // a short directory: a Unix socket path may not exceed 107 bytes
    Path controlDir = Files.createTempDirectory(Path.of("/tmp"), "cm");
    Path control = controlDir.resolve("%C");
    List<String> ssh =
        List.of(
            "ssh",
            "-F",
            "/dev/null",
            "-i",
            sshd.clientKeyFile().toString(),
            "-p",
            Integer.toString(sshd.port()),
            "-o",
            "BatchMode=yes",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ControlMaster=auto",
            "-o",
            "ControlPath=" + control,
            "-o",
            "ControlPersist=60",
            System.getProperty("user.name") + "@127.0.0.1");
    long firstMaster = System.nanoTime();
    runProcess(concat(ssh, "true"));
    double firstMasterMs = (System.nanoTime() - firstMaster) / 1e6;
    Stats master =
        measure(
            rounds,
            () -> {
              for (int i = 0; i < commands; i++) {
                runProcess(concat(ssh, "true"));
              }
            });
    runProcess(concat(concat(ssh.subList(0, ssh.size() - 1), "-O"), "exit", ssh.getLast()));
    Files.deleteIfExists(controlDir);
    return new Timed(master, firstMasterMs);
  }

  /** Cold: connect, authenticate, exec, close per command. */
  private static Stats cold(
      SshConnection connection, SshjRemoteConnector sshj, int commands, int rounds)
      throws Exception {
    RemoteSession.LineSink discard = (stream, line) -> {};
    return measure(
        rounds,
        () -> {
          for (int i = 0; i < commands; i++) {
            try (RemoteSession session = sshj.connect(connection, n -> {})) {
              check(session.exec("true", discard, null), "cold");
            }
          }
        });
  }

  private static void printSsh(int commands, int rounds, Pooled p, Timed m, Stats cold) {
    Stats pooled = p.commands().stats();
    Stats master = m.stats();
    OUT.printf(
        Locale.ROOT,
        "%d sequential `true` commands to one loopback OpenSSH sshd; median and p90 of %d rounds"
            + " after 1 warm-up round%n%n",
        commands,
        rounds);
    OUT.println("| | median | p90 | per command (median) |");
    OUT.println("|---|---|---|---|");
    OUT.println(row("pooled sshj connection (RunConnectionPool)", pooled, commands));
    OUT.println(row("OpenSSH ControlMaster (`ssh` per command)", master, commands));
    OUT.println(row("cold sshj connection per command", cold, commands));
    OUT.println(row("remote-exec steps through ActionRunner, pooled", p.steps(), commands));
    OUT.printf(
        Locale.ROOT,
        "%nfirst connection (not in the rounds): pool %.0f ms, ControlMaster %.0f ms%n",
        p.commands().firstMs(),
        m.firstMs());
    OUT.printf(
        Locale.ROOT,
        "pooled / ControlMaster: %.2f× (target ≤ 1.0×); cold / pooled: %.1f×;"
            + " remote-exec step / pooled command: %.1f×%n",
        pooled.medianMs() / master.medianMs(),
        cold.medianMs() / pooled.medianMs(),
        p.steps().medianMs() / pooled.medianMs());
  }

  private static ActionDispatched remoteExecAction(SshConnection connection) {
    ProvisionerStep step =
        new ProvisionerStep(
            "remote-exec",
            null,
            null,
            null,
            null,
            null,
            null,
            true,
            false,
            connection,
            List.of("true"),
            null,
            null,
            null,
            null,
            0,
            0);
    return new ActionDispatched(
        "run-1",
        "bench",
        "stateful_provisioning.bench",
        "stateful_provisioning",
        "create",
        Map.of(),
        List.of(),
        List.of(step),
        1,
        List.of());
  }

  static void check(int exit, String what) {
    if (exit != 0) {
      throw new IllegalStateException(what + ": `true` exited " + exit);
    }
  }

  private static List<String> concat(List<String> head, String... tail) {
    return Stream.concat(head.stream(), Stream.of(tail)).toList();
  }

  private static void runProcess(List<String> command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .start();
    byte[] output = p.getInputStream().readAllBytes();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          String.join(" ", command)
              + " failed: "
              + new String(output, StandardCharsets.UTF_8).strip());
    }
  }

  // ---------------------------------------------------------------- local-exec

  static void localExec(int steps, int parallelism, int rounds) throws Exception {
    Path dir = Files.createTempDirectory("bench-local-exec");
    ActionRunner runner = new ActionRunner(dir);
    ActionDispatched action =
        new ActionDispatched(
            "run-1",
            "bench",
            "stateful_provisioning.bench",
            "stateful_provisioning",
            "create",
            Map.of(),
            List.of(),
            List.of(
                new ProvisionerStep(
                    "local-exec", null, null, "true", null, null, null, false, false)),
            1,
            List.of());

    Stats ours = actionRunnerRounds(runner, action, steps, parallelism, rounds);
    Stats bare = bareProcessRounds(steps, parallelism, rounds);

    OUT.printf(
        Locale.ROOT,
        "%d local-exec `true` steps, parallelism %d; median and p90 of %d rounds after 1 warm-up"
            + " round%n%n",
        steps,
        parallelism,
        rounds);
    OUT.println("| | median | p90 | per step (median) |");
    OUT.println("|---|---|---|---|");
    OUT.println(row("ActionRunner, virtual thread per action + semaphore", ours, steps));
    OUT.println(row("bare ProcessBuilder pool (platform threads)", bare, steps));
    OUT.printf(
        Locale.ROOT,
        "%nActionRunner / bare: %.2f× (target ≤ 1.25×)%n",
        ours.medianMs() / bare.medianMs());
    Files.deleteIfExists(dir);
  }

  /**
   * The executor's way: a virtual thread per action, at most {@code parallelism} at once through a
   * semaphore acquired before the action is handed over.
   */
  private static Stats actionRunnerRounds(
      ActionRunner runner, ActionDispatched action, int steps, int parallelism, int rounds)
      throws Exception {
    return measure(
        rounds,
        () -> {
          Semaphore permits = new Semaphore(parallelism);
          try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ActionResult>> results = new ArrayList<>(steps);
            for (int i = 0; i < steps; i++) {
              permits.acquire();
              results.add(
                  workers.submit(
                      () -> {
                        try {
                          return runner.run(action, (s, st, l) -> {});
                        } finally {
                          permits.release();
                        }
                      }));
            }
            for (Future<ActionResult> result : results) {
              if (!result.get().isSucceeded()) {
                throw new IllegalStateException("local-exec failed: " + result.get().error());
              }
            }
          }
        });
  }

  /** The baseline: a pool of {@code parallelism} platform threads running {@code sh -c true}. */
  private static Stats bareProcessRounds(int steps, int parallelism, int rounds) throws Exception {
    return measure(
        rounds,
        () -> {
          ExecutorService pool = Executors.newFixedThreadPool(parallelism);
          try {
            List<Future<Integer>> exits = new ArrayList<>(steps);
            for (int i = 0; i < steps; i++) {
              exits.add(
                  pool.submit(() -> new ProcessBuilder("/bin/sh", "-c", "true").start().waitFor()));
            }
            for (Future<Integer> exit : exits) {
              check(exit.get(), "bare ProcessBuilder");
            }
          } finally {
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.MINUTES);
          }
        });
  }
}
