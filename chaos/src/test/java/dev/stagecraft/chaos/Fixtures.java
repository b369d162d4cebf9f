package dev.stagecraft.chaos;

import dev.stagecraft.chaos.history.DataAccess;
import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.history.Fault;
import dev.stagecraft.chaos.history.History;
import dev.stagecraft.chaos.history.LockTenure;
import dev.stagecraft.chaos.history.RunRecord;
import dev.stagecraft.chaos.history.StateEntry;
import dev.stagecraft.chaos.history.StepExecution;
import dev.stagecraft.chaos.history.StepReport;
import java.time.Instant;

/** Small histories for the checker's tests; times are seconds after 10:00:00Z. */
public final class Fixtures {
  private Fixtures() {}

  public static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

  public static Instant t(long seconds) {
    return T0.plusSeconds(seconds);
  }

  public static History.Builder history(long observedUntilSeconds) {
    return History.builder(t(observedUntilSeconds));
  }

  public static RunRecord applied(
      String id, String workspace, long queued, long started, long ended) {
    return new RunRecord(
        id, "acme", workspace, t(queued), t(started), t(ended), "applied", queued, false);
  }

  public static RunRecord running(String id, String workspace, long queued, long started) {
    return new RunRecord(
        id, "acme", workspace, t(queued), t(started), null, "applying", queued, false);
  }

  public static StepExecution ran(String run, String step, String host, long at) {
    return new StepExecution(
        host, "tok-" + run + "-" + step, run, step.split("#", -1)[0], step, false, t(at));
  }

  public static StepExecution ranRetryable(String run, String step, String host, long at) {
    return new StepExecution(
        host, "tok-" + run + "-" + step, run, step.split("#", -1)[0], step, true, t(at));
  }

  public static StepReport reported(
      String run, String step, String action, String outcome, boolean tainted, long at) {
    return new StepReport(run, step.split("#", -1)[0], step, action, outcome, tainted, t(at));
  }

  public static StateEntry write(String ws, long seq, long serial, long token, long at) {
    return new StateEntry(
        "acme", ws, seq, StateEntry.Kind.WRITE, serial, "lin-1", token, "r-" + token, t(at));
  }

  public static StateEntry fenced(String ws, long seq, long token, long at) {
    return new StateEntry(
        "acme", ws, seq, StateEntry.Kind.FENCING_ADVANCED, 0, null, token, "r-" + token, t(at));
  }

  public static LockTenure held(String ws, String holder, long token, long from, Long until) {
    return new LockTenure(
        "acme",
        ws,
        holder,
        token,
        t(from),
        until == null ? null : t(until),
        until == null ? null : "released");
  }

  public static EventSighting up(String id, long at) {
    return new EventSighting("stagecraft.run-events", id, EventSighting.Side.UPSTREAM, t(at));
  }

  public static EventSighting down(String id, long at) {
    return new EventSighting("stagecraft.run-events", id, EventSighting.Side.DOWNSTREAM, t(at));
  }

  public static DataAccess read(String reader, String owner, String resource, long at) {
    return new DataAccess(reader, owner, resource, t(at));
  }

  public static Fault kill(String target, long at, long restarted) {
    return new Fault("kill", target, t(at), t(restarted));
  }
}
