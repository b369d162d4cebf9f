package dev.stagecraft.benchmarks;

import dev.stagecraft.executor.sandbox.BubblewrapSandbox;
import dev.stagecraft.executor.sandbox.SandboxSettings;
import dev.stagecraft.executor.step.ActionResult;
import dev.stagecraft.executor.step.ActionRunner;
import dev.stagecraft.executor.step.LocalCommands;
import dev.stagecraft.executor.step.RemoteConnector;
import dev.stagecraft.executor.step.UnsandboxedCommands;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the local-exec sandbox (ADR 0060) costs a step: actions of {@code local-exec "true"} steps
 * through {@link ActionRunner}, in the sandbox against unsandboxed, in the same process, one after
 * the other (sequentially: the figure is the latency a step adds). Also the sandbox's setup per
 * action alone (uid lease, private file system, control groups, and their removal) and the cost of
 * a second step of the same action, and {@code /bin/sh -c true} started directly as the floor.
 * Prints the table docs/benchmarks.md reports. Not a test: it asserts nothing about time. Needs
 * root and bubblewrap, as the executor does.
 *
 * <p>{@code SandboxBenchmark [ACTIONS] [ROUNDS]}: each measurement runs ACTIONS actions per round;
 * one warm-up round, then ROUNDS measured rounds; median and p90 over the rounds.
 */
public final class SandboxBenchmark {
  private static final PrintStream OUT = System.out;

  private SandboxBenchmark() {}

  public static void main(String[] args) throws Exception {
    int actions = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("bench-sandbox");
    Files.setAttribute(dir, "unix:mode", 0711); // the sandbox uids pass through to their files
    BubblewrapSandbox sandbox =
        BubblewrapSandbox.create(SandboxSettings.defaults(dir.resolve("sandbox")));
    ActionRunner plain =
        new ActionRunner(new UnsandboxedCommands(dir), RemoteConnector.UNAVAILABLE);
    ActionRunner boxed = new ActionRunner(sandbox, RemoteConnector.UNAVAILABLE);
    ActionDispatched one = action(1);
    ActionDispatched two = action(2);

    ExecutorBenchmark.Stats floor =
        ExecutorBenchmark.measure(
            rounds,
            () -> {
              for (int i = 0; i < actions; i++) {
                ExecutorBenchmark.check(
                    new ProcessBuilder("/bin/sh", "-c", "true").start().waitFor(), "sh");
              }
            });
    ExecutorBenchmark.Stats unsandboxed =
        ExecutorBenchmark.measure(rounds, () -> run(plain, one, actions));
    ExecutorBenchmark.Stats sandboxed =
        ExecutorBenchmark.measure(rounds, () -> run(boxed, one, actions));
    ExecutorBenchmark.Stats twoSteps =
        ExecutorBenchmark.measure(rounds, () -> run(boxed, two, actions));
    ExecutorBenchmark.Stats setup =
        ExecutorBenchmark.measure(
            rounds,
            () -> {
              for (int i = 0; i < actions; i++) {
                try (LocalCommands.Session s =
                    sandbox.open(new LocalCommands.ActionIdentity("bench", "bench/" + i))) {
                  s.exceededLimit();
                }
              }
            });

    OUT.printf(
        Locale.ROOT,
        "%d actions per round, one after the other; median and p90 of %d rounds after 1 warm-up"
            + " round; per action = median / %d%n%n",
        actions,
        rounds,
        actions);
    OUT.println("| | median | p90 | per action (median) |");
    OUT.println("|---|---|---|---|");
    OUT.println(
        ExecutorBenchmark.row("`/bin/sh -c true` started directly (floor)", floor, actions));
    OUT.println(ExecutorBenchmark.row("local-exec `true`, unsandboxed", unsandboxed, actions));
    OUT.println(ExecutorBenchmark.row("local-exec `true`, sandboxed", sandboxed, actions));
    OUT.println(
        ExecutorBenchmark.row(
            "two local-exec `true` steps in one action, sandboxed", twoSteps, actions));
    OUT.println(
        ExecutorBenchmark.row("the sandbox's setup and removal per action alone", setup, actions));
    OUT.printf(
        Locale.ROOT,
        "%nsandboxed / unsandboxed: %.2f× (target ≤ 1.5×); setup per action %.2f ms; each further"
            + " step of an action %.2f ms%n",
        sandboxed.medianMs() / unsandboxed.medianMs(),
        setup.medianMs() / actions,
        (twoSteps.medianMs() - sandboxed.medianMs()) / actions);
  }

  private static void run(ActionRunner runner, ActionDispatched action, int times) {
    for (int i = 0; i < times; i++) {
      ActionResult result = runner.run(action, (s, st, l) -> {});
      if (!result.isSucceeded()) {
        throw new IllegalStateException("local-exec failed: " + result.error());
      }
    }
  }

  private static ActionDispatched action(int steps) {
    return new ActionDispatched(
        "run-1",
        "run-1/stateful_provisioning.bench",
        "stateful_provisioning.bench",
        "stateful_provisioning",
        "create",
        Map.of(),
        List.of(),
        Collections.nCopies(
            steps,
            new ProvisionerStep("local-exec", null, null, "true", null, null, null, true, false)),
        1,
        List.of());
  }
}
