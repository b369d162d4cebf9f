package dev.stagecraft.state.history;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One change to a workspace's state. Events are appended, never changed; the state is their fold
 * ({@link WorkspaceState#apply}). Evolution is additive: a new kind of change is a new record.
 */
public sealed interface StateEvent {

  /** The wire name stored with the event and shown in the history listing. */
  String typeName();

  /** The instance address the event is about, or null. */
  String address();

  /**
   * False for the events that only record something about the workspace (a lock forced open, a
   * fencing token advanced): the state after them is the state before.
   */
  default boolean changesState() {
    return true;
  }

  /** The first event of a workspace: the lineage that identifies its state forever. */
  record LineageAssigned(String lineage) implements StateEvent {
    public LineageAssigned {
      Objects.requireNonNull(lineage, "lineage");
    }

    @Override
    public String typeName() {
      return "lineage_assigned";
    }

    @Override
    public String address() {
      return null;
    }
  }

  /** Why an instance was written. */
  enum WriteKind {
    CREATED,
    UPDATED,
    REPLACED,
    /** A failed create/replace: the instance exists but must be replaced next time. */
    TAINTED
  }

  /**
   * An instance was created, updated or replaced (or left tainted by a failed create). The event
   * carries the whole instance: a write replaces whatever the state held at the address.
   *
   * @param createBeforeDestroy the instance's effective {@code create_before_destroy}, as the
   *     planner dispatched it (v4 instance {@code create_before_destroy})
   * @param skipDestroy {@code lifecycle { destroy = false }} was in effect (v4 instance {@code
   *     skip_destroy}, Stagecraft's extension): a later removal of the resource forgets it
   *     <p>Both fields were added later: events stored before them have neither, and read as false
   *     (the JSON mapper defaults a missing boolean), which is what those runs meant.
   */
  record InstanceWritten(
      String address,
      String resourceType,
      Map<String, Object> attributes,
      List<String> dependencies,
      boolean tainted,
      WriteKind kind,
      boolean createBeforeDestroy,
      boolean skipDestroy)
      implements StateEvent {
    public InstanceWritten {
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(kind, "kind");
      attributes =
          attributes == null
              ? Map.of()
              : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
      dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
    }

    /** Without lifecycle flags (both false). */
    public InstanceWritten(
        String address,
        String resourceType,
        Map<String, Object> attributes,
        List<String> dependencies,
        boolean tainted,
        WriteKind kind) {
      this(address, resourceType, attributes, dependencies, tainted, kind, false, false);
    }

    @Override
    public String typeName() {
      return "instance_" + kind.name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * An instance moved from {@code from} to {@code address}: a {@code moved} block (or Terraform's
   * implied move between {@code type.name} and {@code type.name[0]}) renamed its resource or key.
   * The object is the same; only its address changes, and, for a move from {@code null_resource} to
   * {@code terraform_data}, its type and attributes ({@code resourceType} and {@code attributes},
   * null when unchanged). Folded onto a state that does not hold {@code from}, or already holds
   * {@code address}, it changes no instance (the decider never produces that).
   */
  record InstanceMoved(
      String from, String address, String resourceType, Map<String, Object> attributes)
      implements StateEvent {
    public InstanceMoved {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(address, "address");
      attributes =
          attributes == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    @Override
    public String typeName() {
      return "instance_moved";
    }
  }

  /** How an instance left the state. */
  enum RemoveKind {
    /** Destroyed by a successful delete. */
    DELETED,
    /** Dropped from state without destroying it. */
    FORGOTTEN
  }

  /**
   * An instance was marked tainted by hand ({@code stagecraft taint}: the next plan replaces it) or
   * its taint mark was cleared ({@code stagecraft untaint}). Only the mark changes; attributes and
   * dependencies stay as they were. Folded onto an address that is not in the state, it changes no
   * instance (the decider never produces that).
   */
  record InstanceTaintChanged(String address, boolean tainted) implements StateEvent {
    public InstanceTaintChanged {
      Objects.requireNonNull(address, "address");
    }

    /** {@code instance_marked_tainted} or {@code instance_untainted}. */
    @Override
    public String typeName() {
      return tainted ? "instance_marked_tainted" : "instance_untainted";
    }
  }

  /** Why a whole state document replaced the workspace's state. */
  enum ReplaceKind {
    /** {@code stagecraft state push}, the REST push or a POST over the Terraform HTTP backend. */
    PUSHED,
    /** A rollback to an older version: that version's document with a new serial. */
    ROLLED_BACK
  }

  /**
   * A whole Terraform v4 state document replaced the workspace's state (push, import, rollback).
   * The document was accepted by {@link TerraformStateValidator}; the state after it is {@link
   * TerraformStateV4#parse parsed} from it, with everything Stagecraft does not model kept as
   * {@link StateExtras}, so a pull gives the document back. Its {@code serial} and {@code lineage}
   * become the workspace's.
   *
   * <p>The document is either embedded ({@code document}; rollbacks, and every push recorded before
   * documents were stored apart) or {@code stored} once apart from the event, byte for byte as it
   * was pushed (ADR 0022): exactly one of the two is set. A fold that meets a stored document must
   * load it before it can {@link WorkspaceState#apply apply} anything after it; the store does
   * that.
   *
   * @param rolledBackFrom for a rollback, the serial of the version restored; else null
   * @param stored the stored document this event made the state, or null when {@code document} is
   *     embedded (added later: older events have no such field and read as null)
   */
  record StateReplaced(
      Map<String, Object> document, ReplaceKind kind, Long rolledBackFrom, StoredDocument stored)
      implements StateEvent {
    public StateReplaced {
      if ((document == null) == (stored == null)) {
        throw new IllegalArgumentException(
            "a replaced state has either an embedded document or a stored one, not both or none");
      }
      Objects.requireNonNull(kind, "kind");
    }

    /** A replacement by an embedded document. */
    public StateReplaced(Map<String, Object> document, ReplaceKind kind, Long rolledBackFrom) {
      this(document, kind, rolledBackFrom, null);
    }

    /** A push of a document stored apart. */
    public static StateReplaced pushed(StoredDocument stored) {
      return new StateReplaced(null, ReplaceKind.PUSHED, null, stored);
    }

    /** {@code state_pushed} or {@code state_rolled_back}. */
    @Override
    public String typeName() {
      return kind == ReplaceKind.PUSHED ? "state_pushed" : "state_rolled_back";
    }

    @Override
    public String address() {
      return null;
    }
  }

  /**
   * The workspace's state was deleted (Terraform's HTTP backend {@code DELETE}): it reads as empty
   * from now on — no lineage, no instances — while the serial stays, so versions keep growing.
   * Nothing is physically deleted; older versions stay readable.
   */
  record StateDeleted(String reason) implements StateEvent {
    @Override
    public String typeName() {
      return "state_deleted";
    }

    @Override
    public String address() {
      return null;
    }
  }

  /**
   * The workspace lock was forced open by someone other than its holder. Changes no state (the
   * serial stays); recorded so the history says who forced it and why.
   *
   * @param lockId the lock id as the caller named it
   * @param holder who held it
   * @param fencingToken the released lease's token
   * @param reason why, as the caller said
   */
  record LockForceUnlocked(String lockId, String holder, long fencingToken, String reason)
      implements StateEvent {
    public LockForceUnlocked {
      Objects.requireNonNull(lockId, "lockId");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String typeName() {
      return "lock_force_unlocked";
    }

    @Override
    public String address() {
      return null;
    }

    @Override
    public boolean changesState() {
      return false;
    }
  }

  /**
   * The workspace's newest fencing token became {@code fencingToken} (a lock holder took over)
   * without any other event in the same write: the run opening, an explicit advance. Changes no
   * state; recorded because every advance of the token moves the workspace's head (ADR 0052), which
   * is what lets the common append skip reading the token.
   *
   * @param fencingToken the token that became the newest
   */
  record FencingAdvanced(long fencingToken) implements StateEvent {
    @Override
    public String typeName() {
      return "fencing_advanced";
    }

    @Override
    public String address() {
      return null;
    }

    @Override
    public boolean changesState() {
      return false;
    }
  }

  /**
   * A run recorded the configuration's root outputs after a successful apply: {@code outputs} is
   * the whole set (name → {@code {"value", "type", "sensitive"}}, Terraform's v4 form; the value of
   * a sensitive output sealed by the planner, docs/adr/0024) and replaces the previous set, so an
   * output removed from the configuration disappears. Bumps the serial, like any change Terraform
   * would write. docs/adr/0064.
   */
  record OutputsWritten(Map<String, Object> outputs) implements StateEvent {
    public OutputsWritten {
      outputs = outputs == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(outputs));
    }

    @Override
    public String typeName() {
      return "outputs_written";
    }

    @Override
    public String address() {
      return null;
    }
  }

  /** An instance was removed from the state. */
  record InstanceRemoved(String address, RemoveKind kind) implements StateEvent {
    public InstanceRemoved {
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(kind, "kind");
    }

    @Override
    public String typeName() {
      return "instance_" + kind.name().toLowerCase(Locale.ROOT);
    }
  }
}
