package dev.stagecraft.chaos.invariant;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A broken promise and its evidence.
 *
 * @param kind what was broken
 * @param what one sentence naming the subject and the facts, e.g. {@code run r-1 is still
 *     "applying" at 10:00:30Z, 30 s after the last fault (bound 20 s)}
 * @param ids the ids involved (runs, steps, workspaces, events), first the subject
 * @param evidence the history's records that show it, in history order
 */
public record Violation(ViolationKind kind, String what, List<String> ids, List<Record> evidence) {

  /** Report order: by kind, then by ids, then by text; so a report is the same on every run. */
  public static final Comparator<Violation> ORDER =
      Comparator.comparing(Violation::kind)
          .thenComparing(v -> String.join("\u0000", v.ids()))
          .thenComparing(Violation::what);

  public Violation {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(what, "what");
    ids = List.copyOf(ids);
    evidence = List.copyOf(evidence);
  }
}
