package dev.stagecraft.state.history;

import dev.stagecraft.state.history.StateEvent.ReplaceKind;
import dev.stagecraft.state.history.StateEvent.StateDeleted;
import dev.stagecraft.state.history.StateEvent.StateReplaced;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Decides whole-document changes to a workspace's state: a push (import, {@code stagecraft state
 * push}, a POST over the Terraform HTTP backend), a rollback to an older version, and a deletion.
 * Rules, as Terraform's {@code state push} and HTTP backend have them:
 *
 * <ul>
 *   <li>a document that fails {@link TerraformStateValidator} → {@link Rejection#INVALID} with
 *       every problem (JSON path + reason);
 *   <li>a fencing token older than the newest seen → {@link Rejection#STALE_FENCING_TOKEN};
 *   <li>an empty workspace (never written, or deleted) takes any valid document as it is;
 *   <li>otherwise, without force: another lineage → {@link Rejection#LINEAGE_MISMATCH}; a lower
 *       serial → {@link Rejection#SERIAL_BACKWARDS}; the same serial → accepted with nothing
 *       written when the document equals the current state (a retried upload), else {@link
 *       Rejection#SERIAL_UNCHANGED}; a higher serial → stored as it is;
 *   <li>with force: stored; when its serial is not above the current one, it is stored with serial
 *       current + 1, so versions keep increasing (the only change made to a pushed document);
 *   <li>a rollback stores the old version's document with serial current + 1;
 *   <li>a deletion of a non-empty state → {@code state_deleted}; of an empty one → nothing.
 * </ul>
 *
 * <p>Pure functions; thread-safe.
 */
public final class DocumentDecider {

  /** Why a change was refused. */
  public enum Rejection {
    INVALID,
    STALE_FENCING_TOKEN,
    LINEAGE_MISMATCH,
    SERIAL_BACKWARDS,
    SERIAL_UNCHANGED
  }

  /**
   * The events to append (none when refused or when nothing changes), the refusal with its
   * problems, and the serial after the events.
   */
  public record Outcome(
      List<StateEvent> events, Rejection rejection, List<String> problems, long serial) {
    public Outcome {
      events = List.copyOf(events);
      problems = List.copyOf(problems);
    }

    public boolean accepted() {
      return rejection == null;
    }

    /** The problems as one message. */
    public String error() {
      return String.join("; ", problems);
    }
  }

  private DocumentDecider() {}

  public static Outcome push(
      Object document,
      WorkspaceState current,
      boolean force,
      long fencingToken,
      long newestFencingToken) {
    List<String> problems = TerraformStateValidator.validate(document);
    if (!problems.isEmpty()) {
      return refused(current, Rejection.INVALID, problems);
    }
    if (fencingToken < newestFencingToken) {
      return stale(current, fencingToken, newestFencingToken);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> doc = new LinkedHashMap<>((Map<String, Object>) document);
    long serial = ((Number) doc.get("serial")).longValue();
    String lineage = (String) doc.get("lineage");
    if (!current.isEmpty()) {
      Outcome refusal = refusal(lineage, serial, current, force);
      if (refusal != null) {
        return refusal;
      }
      if (!force && serial == current.serial()) {
        if (sameJson(TerraformStateV4.render(current, current.lineage()), doc)) {
          return new Outcome(List.of(), null, List.of(), current.serial());
        }
        return refused(current, Rejection.SERIAL_UNCHANGED, List.of(serialUnchanged(serial)));
      }
      if (force && serial <= current.serial()) {
        serial = current.serial() + 1;
        doc.put("serial", serial);
      }
    }
    return new Outcome(
        List.of(new StateReplaced(doc, ReplaceKind.PUSHED, null)), null, List.of(), serial);
  }

  /**
   * Rewrites a stored upload with another {@code serial} (a forced push whose serial is not above
   * the current one), returning the reference of the rewritten document.
   */
  @FunctionalInterface
  public interface SerialRewrite {
    StoredDocument withSerial(long serial);
  }

  /**
   * A push of a document already stored apart ({@link StoredDocument}; validated while it was read:
   * {@code problems} are {@link TerraformStateValidator}'s), with the same rules as {@link #push}.
   * The document itself is never loaded here: {@code sameContent} answers, only when asked (same
   * serial, different bytes), whether the upload has the JSON of the current state, and {@code
   * rewrite} makes the copy with serial current + 1 a forced push needs.
   *
   * @param currentDocument the stored document the current state still is exactly (no event since),
   *     or null
   */
  public static Outcome pushStored(
      StoredDocument upload,
      List<String> problems,
      WorkspaceState current,
      StoredDocument currentDocument,
      boolean force,
      long fencingToken,
      long newestFencingToken,
      BooleanSupplier sameContent,
      SerialRewrite rewrite) {
    if (!problems.isEmpty()) {
      return refused(current, Rejection.INVALID, problems);
    }
    if (fencingToken < newestFencingToken) {
      return stale(current, fencingToken, newestFencingToken);
    }
    StoredDocument stored = upload;
    if (!current.isEmpty()) {
      Outcome refusal = refusal(upload.lineage(), upload.serial(), current, force);
      if (refusal != null) {
        return refusal;
      }
      if (!force && upload.serial() == current.serial()) {
        boolean same =
            currentDocument != null
                ? currentDocument.digest().equals(upload.digest()) || sameContent.getAsBoolean()
                : sameContent.getAsBoolean();
        if (same) {
          return new Outcome(List.of(), null, List.of(), current.serial());
        }
        return refused(
            current, Rejection.SERIAL_UNCHANGED, List.of(serialUnchanged(upload.serial())));
      }
      if (force && upload.serial() <= current.serial()) {
        stored = rewrite.withSerial(current.serial() + 1);
      }
    }
    return new Outcome(List.of(StateReplaced.pushed(stored)), null, List.of(), stored.serial());
  }

  /** The lineage and serial-backwards refusals of a push without force, or null. */
  private static Outcome refusal(
      String lineage, long serial, WorkspaceState current, boolean force) {
    if (!force && !lineage.equals(current.lineage())) {
      return refused(
          current,
          Rejection.LINEAGE_MISMATCH,
          List.of(
              "$.lineage: the state has lineage "
                  + current.lineage()
                  + " but the upload has "
                  + lineage
                  + ": it is a different state; pull the current one, or push with force to"
                  + " replace it"));
    }
    if (!force && serial < current.serial()) {
      return refused(
          current,
          Rejection.SERIAL_BACKWARDS,
          List.of(
              "$.serial: "
                  + serial
                  + " is lower than the current serial "
                  + current.serial()
                  + ": the upload is older than the stored state; pull it, re-apply your"
                  + " change, or push with force"));
    }
    return null;
  }

  private static String serialUnchanged(long serial) {
    return "$.serial: "
        + serial
        + " equals the current serial but the content differs: a changed state"
        + " needs a higher serial";
  }

  /**
   * A rollback to {@code version} (an older version's v4 document, as {@link
   * TerraformStateV4#render rendered}) stored with serial current + 1.
   */
  public static Outcome rollback(
      Map<String, Object> version,
      long versionSerial,
      WorkspaceState current,
      long fencingToken,
      long newestFencingToken) {
    if (fencingToken < newestFencingToken) {
      return stale(current, fencingToken, newestFencingToken);
    }
    Map<String, Object> doc = new LinkedHashMap<>(version);
    long serial = current.serial() + 1;
    doc.put("serial", serial);
    return new Outcome(
        List.of(new StateReplaced(doc, ReplaceKind.ROLLED_BACK, versionSerial)),
        null,
        List.of(),
        serial);
  }

  /** Deletes the state (an event; nothing is physically removed). */
  public static Outcome delete(
      WorkspaceState current, long fencingToken, long newestFencingToken, String reason) {
    if (fencingToken < newestFencingToken) {
      return stale(current, fencingToken, newestFencingToken);
    }
    if (current.isEmpty()) {
      return new Outcome(List.of(), null, List.of(), current.serial());
    }
    return new Outcome(List.of(new StateDeleted(reason)), null, List.of(), current.serial());
  }

  private static Outcome stale(WorkspaceState current, long token, long newest) {
    return refused(
        current,
        Rejection.STALE_FENCING_TOKEN,
        List.of(
            "fencing token "
                + token
                + " is older than the newest token "
                + newest
                + " seen for this workspace: the writer lost the workspace lock; lock it again"));
  }

  private static Outcome refused(WorkspaceState current, Rejection rejection, List<String> why) {
    return new Outcome(List.of(), rejection, why, current.serial());
  }

  /**
   * JSON semantic equality of plain values: objects by keys regardless of order, lists in order,
   * numbers by value (so {@code 1}, {@code 1L} and {@code 1.0} are equal), the rest by equals.
   */
  public static boolean sameJson(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())) == 0;
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (!x.keySet().equals(y.keySet())) {
        return false;
      }
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!sameJson(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      Iterator<?> i = y.iterator();
      for (Object v : x) {
        if (!sameJson(v, i.next())) {
          return false;
        }
      }
      return true;
    }
    return a == null ? b == null : a.equals(b);
  }
}
