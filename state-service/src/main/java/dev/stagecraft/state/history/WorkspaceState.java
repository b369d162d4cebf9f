package dev.stagecraft.state.history;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The current state of one workspace: a fold of its {@link StateEvent}s. Immutable.
 *
 * @param serial how many state-changing records were made (Terraform's {@code serial})
 * @param lineage null until the first write
 * @param instances by address, sorted
 * @param extras what a pushed document held beyond this model ({@link StateExtras#NONE} when
 *     nothing was pushed)
 * @param outputs the root outputs (Terraform v4 {@code outputs}: name → {@code {"value", "type",
 *     "sensitive"}}), by name: those of the newest write — a pushed document's, or the set a run
 *     recorded ({@link StateEvent.OutputsWritten}), whichever came last
 */
public record WorkspaceState(
    long serial,
    String lineage,
    Map<String, InstanceState> instances,
    StateExtras extras,
    Map<String, Object> outputs) {

  public static final WorkspaceState EMPTY = new WorkspaceState(0, null, Map.of());

  public WorkspaceState {
    instances = Collections.unmodifiableMap(new TreeMap<>(instances));
    extras = extras == null ? StateExtras.NONE : extras;
    outputs = outputs == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(outputs));
  }

  /** A state without extras or outputs. */
  public WorkspaceState(long serial, String lineage, Map<String, InstanceState> instances) {
    this(serial, lineage, instances, StateExtras.NONE, Map.of());
  }

  /** A state without outputs. */
  public WorkspaceState(
      long serial, String lineage, Map<String, InstanceState> instances, StateExtras extras) {
    this(serial, lineage, instances, extras, Map.of());
  }

  public static WorkspaceState fold(List<StateEvent> events) {
    WorkspaceState state = EMPTY;
    for (StateEvent event : events) {
      state = state.apply(event);
    }
    return state;
  }

  /** True while nothing was ever written (no lineage yet). */
  public boolean isEmpty() {
    return lineage == null;
  }

  /**
   * The state after {@code event}. Instance changes bump the serial; the lineage does not; a
   * replaced document brings its own serial and lineage; a deletion empties the state but keeps the
   * serial; a force-unlock changes nothing; recorded outputs replace the outputs and bump the
   * serial.
   */
  public WorkspaceState apply(StateEvent event) {
    return switch (event) {
      case StateEvent.LineageAssigned l ->
          new WorkspaceState(serial, l.lineage(), instances, extras, outputs);
      case StateEvent.StateReplaced r -> {
        if (r.document() == null) {
          throw new IllegalStateException(
              "the state is the stored document "
                  + r.stored().digest()
                  + ": load it and apply the parsed document instead (the store does)");
        }
        yield TerraformStateV4.parse(r.document());
      }
      case StateEvent.StateDeleted d -> new WorkspaceState(serial, null, Map.of());
      case StateEvent.LockForceUnlocked f -> this;
      case StateEvent.FencingAdvanced f -> this;
      case StateEvent.OutputsWritten o ->
          new WorkspaceState(serial + 1, lineage, instances, extras, o.outputs());
      case StateEvent.InstanceWritten w -> {
        Map<String, InstanceState> next = new TreeMap<>(instances);
        next.put(
            w.address(),
            new InstanceState(
                w.address(),
                w.resourceType(),
                w.attributes(),
                w.dependencies(),
                w.tainted(),
                w.createBeforeDestroy(),
                w.skipDestroy()));
        yield new WorkspaceState(
            serial + 1, lineage, next, extras.withoutInstance(w.address(), next), outputs);
      }
      case StateEvent.InstanceTaintChanged t -> {
        Map<String, InstanceState> next = new TreeMap<>(instances);
        next.computeIfPresent(t.address(), (address, i) -> i.withTainted(t.tainted()));
        yield new WorkspaceState(serial + 1, lineage, next, extras, outputs);
      }
      case StateEvent.InstanceMoved m -> {
        InstanceState moving = instances.get(m.from());
        if (moving == null || instances.containsKey(m.address())) {
          yield new WorkspaceState(serial + 1, lineage, instances, extras, outputs);
        }
        Map<String, InstanceState> next = new TreeMap<>(instances);
        next.remove(m.from());
        next.put(
            m.address(),
            new InstanceState(
                m.address(),
                m.resourceType() == null ? moving.resourceType() : m.resourceType(),
                m.attributes() == null ? moving.attributes() : m.attributes(),
                moving.dependencies(),
                moving.tainted(),
                moving.createBeforeDestroy(),
                moving.skipDestroy()));
        yield new WorkspaceState(
            serial + 1,
            lineage,
            next,
            extras.withoutInstance(m.from(), next).withoutInstance(m.address(), next),
            outputs);
      }
      case StateEvent.InstanceRemoved r -> {
        Map<String, InstanceState> next = new TreeMap<>(instances);
        next.remove(r.address());
        yield new WorkspaceState(
            serial + 1, lineage, next, extras.withoutInstance(r.address(), next), outputs);
      }
    };
  }
}
