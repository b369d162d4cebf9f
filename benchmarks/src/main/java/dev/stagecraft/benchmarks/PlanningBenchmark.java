package dev.stagecraft.benchmarks;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanRequest;
import dev.stagecraft.planner.plan.PlanResult;
import dev.stagecraft.planner.plan.PlannedAction;
import dev.stagecraft.planner.plan.Planner;
import dev.stagecraft.planner.plan.PriorInstance;
import dev.stagecraft.planner.plan.PriorState;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Planning time for large configurations in four shapes (wide, chain, fan-in, for_each pairs)
 * against an empty state, a matching state and a state with 1% drift, with a parse-only baseline
 * measured in the same run. Prints a table for docs/benchmarks.md. Not a test: it asserts nothing
 * about time.
 */
public final class PlanningBenchmark {
  private static final PrintStream OUT = System.out;

  private PlanningBenchmark() {}

  /** One shape: a configuration text for n resources. */
  enum Shape {
    WIDE,
    CHAIN,
    FAN_IN,
    FOR_EACH;

    String config(int n) {
      StringBuilder b = new StringBuilder("variable \"rev\" {\n  default = \"r1\"\n}\n");
      switch (this) {
        case WIDE -> {
          for (int i = 0; i < n; i++) {
            b.append("resource \"stateful_provisioning\" \"r")
                .append(i)
                .append("\" {\n  state_key = var.rev\n}\n");
          }
        }
        case CHAIN -> {
          for (int i = 0; i < n; i++) {
            b.append("resource \"stateful_provisioning\" \"r").append(i).append("\" {\n");
            b.append("  state_key = var.rev\n");
            if (i > 0) {
              b.append("  depends_on = [stateful_provisioning.r").append(i - 1).append("]\n");
            }
            b.append("}\n");
          }
        }
        case FAN_IN -> {
          for (int i = 0; i < n - 1; i++) {
            b.append("resource \"stateful_provisioning\" \"r")
                .append(i)
                .append("\" {\n  state_key = var.rev\n}\n");
          }
          b.append("resource \"stateful_provisioning\" \"sink\" {\n  state_key = var.rev\n");
          b.append("  depends_on = [\n");
          for (int i = 0; i < n - 1; i++) {
            b.append("    stateful_provisioning.r").append(i).append(",\n");
          }
          b.append("  ]\n}\n");
        }
        case FOR_EACH -> {
          // Terraform's range() stops at 1,024 values: list the keys literally
          b.append("locals {\n  keys = toset([\n");
          for (int i = 0; i < n / 2; i++) {
            b.append("    \"k").append(i).append("\",\n");
          }
          b.append("  ])\n}\n");
          b.append(
              """
              resource "stateful_provisioning" "a" {
                for_each  = local.keys
                state_key = "${var.rev}-${each.key}"
              }
              resource "stateful_provisioning" "b" {
                for_each  = local.keys
                state_key = stateful_provisioning.a[each.key].state_key
              }
              """);
        }
      }
      return b.toString();
    }
  }

  public static void main(String[] args) {
    int big = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int small = big / 10;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    OUT.printf(
        Locale.ROOT,
        "resources: %d (and %d for growth), median (and fastest) of %d runs after warm-up%n%n",
        big,
        small,
        runs);
    OUT.println(
        "| shape | state | parse only (ms) | plan (ms) | plan / parse | plan 10x / plan 1x"
            + " (medians) | plan 10x / plan 1x (fastest runs) |");
    OUT.println("|---|---|---|---|---|---|---|");
    for (Shape shape : Shape.values()) {
      for (String stateKind : List.of("empty", "matching", "1% drift")) {
        Result large = measure(shape, big, stateKind, runs);
        Result smaller = measure(shape, small, stateKind, runs);
        OUT.printf(
            Locale.ROOT,
            "| %s | %s | %.1f | %.1f | %.1fx | %.1fx | %.1fx |%n",
            shape.name().toLowerCase(Locale.ROOT).replace('_', '-'),
            stateKind,
            large.parseMs,
            large.planMs,
            large.planMs / large.parseMs,
            large.planMs / smaller.planMs,
            large.planMinMs / smaller.planMinMs);
      }
    }
  }

  record Result(double parseMs, double planMs, double planMinMs) {}

  /** Median and fastest of a series of runs, in ms. */
  record Timing(double median, double fastest) {}

  static Result measure(Shape shape, int n, String stateKind, int runs) {
    Map<String, String> files = Map.of("main.tf", shape.config(n));
    PlanRequest request = new PlanRequest("bench", files, Map.of(), List.of(), false, null);
    PriorState state = state(request, stateKind);
    // warm-up: let the JIT compile the planner before measuring
    for (int i = 0; i < 5; i++) {
      ConfigLoader.load(files);
      check(Planner.plan(request, state));
    }
    Timing parse = time(runs, () -> ConfigLoader.load(files));
    Timing plan = time(runs, () -> check(Planner.plan(request, state)));
    return new Result(parse.median(), plan.median(), plan.fastest());
  }

  static PlanResult check(PlanResult result) {
    if (result.hasErrors()) {
      throw new IllegalStateException(result.renderDiagnostics());
    }
    return result;
  }

  /** A prior state: none, exactly what applying the plan would record, or that with 1% drift. */
  static PriorState state(PlanRequest request, String kind) {
    if (kind.equals("empty")) {
      return PriorState.empty();
    }
    Plan plan = check(Planner.plan(request, PriorState.empty())).plan();
    Map<String, PriorInstance> instances = new LinkedHashMap<>();
    int i = 0;
    for (PlannedAction a : plan.actions()) {
      Map<String, Object> attributes = new LinkedHashMap<>(a.after());
      attributes.put("id", Integer.toString(i));
      if (kind.equals("1% drift") && i % 100 == 0) {
        attributes.put("state_key", "drifted");
      }
      instances.put(
          a.address(),
          new PriorInstance(a.address(), a.type(), a.name(), attributes, a.dependencies(), false));
      i++;
    }
    return new PriorState(1, "bench", instances);
  }

  /** The last run's result (see {@link #time}). */
  static volatile Object sink;

  static Timing time(int runs, Supplier<?> work) {
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      // start every run from a collected heap, so a run does not pay for the previous one's garbage
      System.gc();
      long t0 = System.nanoTime();
      sink = work.get(); // kept, so the JIT cannot drop the work
      times.add(System.nanoTime() - t0);
    }
    times.sort(null);
    return new Timing(times.get(times.size() / 2) / 1e6, times.get(0) / 1e6);
  }
}
