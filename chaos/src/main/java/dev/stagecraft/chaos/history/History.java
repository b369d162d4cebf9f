package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the checker knows about one soak, gathered after it from every source (run records,
 * step journals, state histories, the lock audit trail, the event streams, the workload's reads,
 * the fault schedule). A value: neutral records, no reference to where they came from.
 *
 * @param observedUntil when gathering ended: nothing later is in the history
 */
public record History(
    List<RunRecord> runs,
    List<StepExecution> stepExecutions,
    List<StepReport> stepReports,
    List<StateEntry> stateEntries,
    List<LockTenure> lockTenures,
    List<EventSighting> events,
    List<DataAccess> dataAccesses,
    List<Fault> faults,
    List<RunTransition> transitions,
    Instant observedUntil) {

  public History {
    runs = List.copyOf(runs);
    stepExecutions = List.copyOf(stepExecutions);
    stepReports = List.copyOf(stepReports);
    stateEntries = List.copyOf(stateEntries);
    lockTenures = List.copyOf(lockTenures);
    events = List.copyOf(events);
    dataAccesses = List.copyOf(dataAccesses);
    faults = List.copyOf(faults);
    transitions = List.copyOf(transitions);
    Objects.requireNonNull(observedUntil, "observedUntil");
  }

  /** When the last fault was over, if there was any. */
  public Optional<Instant> lastFaultOver() {
    return faults.stream().map(Fault::over).max(Comparator.naturalOrder());
  }

  public static Builder builder(Instant observedUntil) {
    return new Builder(observedUntil);
  }

  /** Collects records from several sources, in any order. */
  public static final class Builder {
    private final Instant observedUntil;
    private final List<RunRecord> runs = new ArrayList<>();
    private final List<StepExecution> stepExecutions = new ArrayList<>();
    private final List<StepReport> stepReports = new ArrayList<>();
    private final List<StateEntry> stateEntries = new ArrayList<>();
    private final List<LockTenure> lockTenures = new ArrayList<>();
    private final List<EventSighting> events = new ArrayList<>();
    private final List<DataAccess> dataAccesses = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final List<RunTransition> transitions = new ArrayList<>();

    private Builder(Instant observedUntil) {
      this.observedUntil = observedUntil;
    }

    public Builder run(RunRecord r) {
      runs.add(r);
      return this;
    }

    public Builder execution(StepExecution e) {
      stepExecutions.add(e);
      return this;
    }

    public Builder report(StepReport r) {
      stepReports.add(r);
      return this;
    }

    public Builder state(StateEntry e) {
      stateEntries.add(e);
      return this;
    }

    public Builder lock(LockTenure t) {
      lockTenures.add(t);
      return this;
    }

    public Builder event(EventSighting e) {
      events.add(e);
      return this;
    }

    public Builder access(DataAccess a) {
      dataAccesses.add(a);
      return this;
    }

    public Builder fault(Fault f) {
      faults.add(f);
      return this;
    }

    public Builder runs(List<RunRecord> all) {
      runs.addAll(all);
      return this;
    }

    public Builder executions(List<StepExecution> all) {
      stepExecutions.addAll(all);
      return this;
    }

    public Builder reports(List<StepReport> all) {
      stepReports.addAll(all);
      return this;
    }

    public Builder states(List<StateEntry> all) {
      stateEntries.addAll(all);
      return this;
    }

    public Builder locks(List<LockTenure> all) {
      lockTenures.addAll(all);
      return this;
    }

    public Builder events(List<EventSighting> all) {
      events.addAll(all);
      return this;
    }

    public Builder accesses(List<DataAccess> all) {
      dataAccesses.addAll(all);
      return this;
    }

    public Builder faults(List<Fault> all) {
      faults.addAll(all);
      return this;
    }

    public Builder transitions(List<RunTransition> all) {
      transitions.addAll(all);
      return this;
    }

    public History build() {
      return new History(
          runs,
          stepExecutions,
          stepReports,
          stateEntries,
          lockTenures,
          events,
          dataAccesses,
          faults,
          transitions,
          observedUntil);
    }
  }
}
