package dev.stagecraft.planner.service.workspace;

/**
 * A change to stored variables or variable sets that is refused: nothing was changed. The message
 * says what is wrong and how to fix it; it never holds a value.
 */
public final class VariableRefused extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why, which decides the API's answer. */
  public enum Reason {
    /** The request itself is wrong (a name, a value, a combination): 400. */
    INVALID,
    /** It conflicts with what is stored (a global set's duplicate, an existing set): 409. */
    CONFLICT,
    /** The variable, set or attachment it names does not exist: 404. */
    NOT_FOUND,
    /** A sensitive value cannot be sealed: the planner has no secrets keyring. */
    CANNOT_SEAL
  }

  private final Reason reason;
  private final String title;

  public VariableRefused(Reason reason, String title, String message) {
    super(message);
    this.reason = reason;
    this.title = title;
  }

  public Reason reason() {
    return reason;
  }

  /** A short title for a problem document ("Invalid variable key"). */
  public String title() {
    return title;
  }
}
