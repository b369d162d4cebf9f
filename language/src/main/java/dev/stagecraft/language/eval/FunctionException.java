package dev.stagecraft.language.eval;

/**
 * Thrown by a function implementation for a bad argument; the evaluator turns it into a diagnostic
 * pointing at the argument. Never escapes {@link Evaluator}.
 */
public final class FunctionException extends RuntimeException {
  private final int argIndex;

  /**
   * @param argIndex index of the offending argument, or -1 for the call as a whole
   */
  public FunctionException(int argIndex, String message) {
    super(message, null, false, false);
    this.argIndex = argIndex;
  }

  public int argIndex() {
    return argIndex;
  }
}
