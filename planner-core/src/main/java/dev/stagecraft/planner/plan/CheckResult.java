package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.SourceRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The outcome of one {@code check} block: the status of each of its assertions and the aggregate,
 * as Terraform reports it in a plan's {@code checks} (an error outweighs a failure, a failure an
 * unknown, an unknown a pass). Plain data.
 *
 * @param name the check's name ({@code check.NAME} is its address)
 */
public record CheckResult(String name, List<Assertion> assertions) {

  /** Terraform's check statuses ({@code checks.Status}). */
  public enum Status {
    PASS,
    FAIL,
    ERROR,
    UNKNOWN;

    /**
     * The name in Terraform's JSON ({@code pass}, {@code fail}, {@code error}, {@code unknown}).
     */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One {@code assert} block's outcome.
   *
   * @param message the error message when it failed (never a sensitive value: a message that refers
   *     to one is replaced by a notice), else null
   * @param range the condition's position
   */
  public record Assertion(Status status, String message, SourceRange range) {}

  public CheckResult {
    assertions = List.copyOf(assertions);
  }

  public String address() {
    return "check." + name;
  }

  /** The check's status: error, else fail, else unknown, else pass. */
  public Status status() {
    for (Status s : List.of(Status.ERROR, Status.FAIL, Status.UNKNOWN)) {
      if (assertions.stream().anyMatch(a -> a.status() == s)) {
        return s;
      }
    }
    return Status.PASS;
  }

  /** The error messages of the failed assertions, sorted (Terraform's {@code problems}). */
  public List<String> problems() {
    return assertions.stream()
        .filter(a -> a.status() == Status.FAIL)
        .map(Assertion::message)
        .sorted()
        .toList();
  }

  /**
   * The warnings this result gives, as Terraform gives them: "Check block assertion failed" with
   * the error message for each failed assertion, and at plan time "Check block assertion known
   * after apply" for each one not known yet.
   *
   * @param afterApply true for the result of an applied run (an assertion unknown then will never
   *     be known, and says so)
   */
  public List<Diagnostic> warnings(boolean afterApply) {
    List<Diagnostic> out = new ArrayList<>();
    for (Assertion a : assertions) {
      switch (a.status()) {
        case FAIL ->
            out.add(
                Diagnostic.warning(
                    CheckAssertions.FAILED,
                    a.message()
                        + "\n\nThis was checked by "
                        + address()
                        + (afterApply ? " after apply" : "")
                        + "; a failed check is a warning and stops nothing.",
                    a.range()));
        case UNKNOWN ->
            out.add(
                Diagnostic.warning(
                    CheckAssertions.KNOWN_AFTER_APPLY,
                    afterApply
                        ? "The condition of "
                            + address()
                            + " is still unknown after apply, so it was not checked."
                        : "The condition could not be evaluated at this time, a result will be"
                            + " known when this plan is applied.",
                    a.range()));
        default -> {}
      }
    }
    return out;
  }
}
