package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.History;
import java.util.List;

/**
 * One family of reliability promises, checked against a whole history. Implementations are pure:
 * the same history gives the same violations in the same order.
 */
public interface Invariant {

  /** The family's name, as {@link ViolationKind#invariant()} gives it. */
  String name();

  /** Every violation of this family in {@code history}; empty when the promise held. */
  List<Violation> check(History history);
}
