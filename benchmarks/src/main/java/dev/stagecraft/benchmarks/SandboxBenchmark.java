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
 * the other (sequentially: the figures are the latency added). Actions of one step and of {@value
 * #STEPS} steps: the difference per extra step is what a step costs once the action's sandbox is up
 * (the ≤ 1.5× target), the one-step actions' difference is the sandbox's setup per action
 * (namespaces, step server, file system, uid, control groups, and their removal). Also that setup
 * without a step, and {@code /bin/sh -c true} started directly as the floor. Prints the table
 * docs/benchmarks.md reports. Not a test: it asserts nothing about time. Needs root and bubblewrap,
 * as the executor does.
 *
 * <p>{@code SandboxBenchmark [ACTIONS] [ROUNDS]}: each measurement runs ACTIONS actions per round;
 * one warm-up round, then ROUNDS measured rounds; median and p90 over the rounds.
 */
public final class SandboxBenchmark {
  private static final PrintStream OUT = System.out;

  /** Steps of the longer action: the cost of a step is the difference over the extra ones. */
  private static final int STEPS = 10;

  private SandboxBenchmark() {}

  public static void main(String[] args) throws Exception {
    int actions = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("bench-sandbox");
    Files.setAttribute(dir, "unix:mode", 0711); // the sandbox uids pass through to their files
    BubblewrapSandbox sandbox =
        BubblewrapSandbox.create(SandboxSettings.defaults(dir.resolve("sandbox")));
    ActionRunner plain =
        new ActionRunner(new UnsandboxedCommands(dir), RemoteConnector.UNAVAILABLE);
    ActionRunner boxed = new ActionRunner(sandbox, RemoteConnector.UNAVAILABLE);
    ActionDispatched one = action(1);
    ActionDispatched many = action(STEPS);

    ExecutorBenchmark.Stats floor =
        ExecutorBenchmark.measure(
            rounds,
            () -> {
              for (int i = 0; i < actions; i++) {
                ExecutorBenchmark.check(
                    new ProcessBuilder("/bin/sh", "-c", "true").start().waitFor(), "sh");
              }
            });
    ExecutorBenchmark.Stats plainOne =
        ExecutorBenchmark.measure(rounds, () -> run(plain, one, actions));
    ExecutorBenchmark.Stats plainMany =
        ExecutorBenchmark.measure(rounds, () -> run(plain, many, actions));
    ExecutorBenchmark.Stats boxedOne =
        ExecutorBenchmark.measure(rounds, () -> run(boxed, one, actions));
    ExecutorBenchmark.Stats boxedMany =
        ExecutorBenchmark.measure(rounds, () -> run(boxed, many, actions));
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
    OUT.println(ExecutorBenchmark.row("one local-exec `true`, unsandboxed", plainOne, actions));
    OUT.println(
        ExecutorBenchmark.row(
            STEPS + " local-exec `true` steps per action, unsandboxed", plainMany, actions));
    OUT.println(ExecutorBenchmark.row("one local-exec `true`, sandboxed", boxedOne, actions));
    OUT.println(
        ExecutorBenchmark.row(
            STEPS + " local-exec `true` steps per action, sandboxed", boxedMany, actions));
    OUT.println(
        ExecutorBenchmark.row(
            "the sandbox's file system, uid and groups alone (no step)", setup, actions));
    double plainStep = (plainMany.medianMs() - plainOne.medianMs()) / actions / (STEPS - 1);
    double boxedStep = (boxedMany.medianMs() - boxedOne.medianMs()) / actions / (STEPS - 1);
    OUT.printf(
        Locale.ROOT,
        "%nper step (each step after an action's first): unsandboxed %.2f ms, sandboxed %.2f ms:"
            + " %.2f× (target ≤ 1.5×)%nthe sandbox's setup per action (its first step, sandboxed"
            + " minus unsandboxed): %.2f ms%n",
        plainStep,
        boxedStep,
        boxedStep / plainStep,
        (boxedOne.medianMs() - plainOne.medianMs()) / actions);
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
