package dev.stagecraft.benchmarks;

import java.util.Arrays;

/**
 * The state store's event append against a raw single-row insert on the same embedded PostgreSQL,
 * in an empty store and in a store holding {@code fill} events. Prints a table for
 * docs/benchmarks.md. Not a test: it asserts nothing about time.
 *
 * <ul>
 *   <li><b>raw insert</b>: one autocommit {@code INSERT} of five of a state event's columns
 *       (tenant, workspace, sequence, the same jsonb payload, time) into a table with the same
 *       primary key; and, since 2026-11-29, <b>the event's row</b>: every column of a state event
 *       with the same values (a) writes, into a table with the same primary key and no other
 *       constraint, index or trigger. Both baselines measure the same (within 2 %): the six text
 *       columns the first leaves out cost nothing measurable;
 *   <li><b>(a) event append</b>: the store's append primitive, {@code EventAppend.appendOne} (ADR
 *       0027, ADR 0052: since 2026-11-29 a bare insert at the head + 1 when the caller knows its
 *       token is the newest at that head; {@code state.append_events} only when that writes
 *       nothing) with one event of the same payload (see {@link StateAppendBenchmark#primitive});
 *       beside it, as "(a, before)", one call of {@code state.append_events} (V7/V14, ADR 0021) per
 *       event; and "(a, no check)", the same event row inserted by the benchmark itself ({@link
 *       StateAppendBenchmark#bareInsert}): what (a) now sends, without the primitive's Java around
 *       it;
 *   <li><b>(b) record</b>: {@code ActionResults.record} of a succeeded {@code update} — the real
 *       path of an executor's result, built on exactly (a): fold (from the in-process cache),
 *       decide, serialize, then one statement with the event, its version row and the outcome;
 *   <li><b>at N events</b>: (a) and (b) again after {@code fill} events were bulk-loaded into the
 *       store (1,000 per workspace), appending to one of those workspaces (for (b) its first append
 *       folds its 1,000 events; the measured ones hit the cache, as in service) and to a new one.
 * </ul>
 *
 * <p>Every series takes its turn in every round, the order rotating ({@link
 * StateBench#interleaved}; since 2026-11-29; before, each series ran as one block after the other,
 * and the machine's drift between blocks moved the ratios by up to ±0.3).
 *
 * <p>Usage: {@code StateBenchmark append [APPENDS] [FILL]} (defaults 2000 and 1000000). One client,
 * one thread: latency per operation, not the database's parallel throughput. {@code StateBenchmark
 * documents [MB...]} (default 1 10 100): see {@link StateDocumentsBenchmark}; {@code StateBenchmark
 * openings [N]}: see {@link StateOpeningsBenchmark}. One class per scenario, their shared timing in
 * {@link StateBench}.
 */
public final class StateBenchmark {
  private StateBenchmark() {}

  public static void main(String[] args) throws Exception {
    String what = args.length > 0 ? args[0] : "append";
    String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    switch (what) {
      case "append" -> StateAppendBenchmark.run(rest);
      case "documents" -> StateDocumentsBenchmark.run(rest);
      case "openings" -> StateOpeningsBenchmark.run(rest);
      default -> {
        System.err.println(
            "usage: StateBenchmark append [APPENDS] [FILL] | documents [MB...] | openings [N]");
        System.exit(2);
      }
    }
  }
}
