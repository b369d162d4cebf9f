package dev.stagecraft.language.eval;

/**
 * Thrown by a function implementation for a bad argument; the evaluator turns it into a diagnostic
 * pointing at the argument. Never escapes {@link Evaluator}. When an argument is sensitive the
 * evaluator leaves the message out (it may quote the value), unless the function says it quotes no
 * value ({@link #quotingNoValue}).
 */
public final class FunctionException extends RuntimeException {
  private final int argIndex;
  private final boolean quotesNoValue;

  /**
   * @param argIndex index of the offending argument, or -1 for the call as a whole
   */
  public FunctionException(int argIndex, String message) {
    this(argIndex, message, false);
  }

  private FunctionException(int argIndex, String message, boolean quotesNoValue) {
    super(message, null, false, false);
    this.argIndex = argIndex;
    this.quotesNoValue = quotesNoValue;
  }

  /** A refusal whose message holds no argument value, so it is shown even for a sensitive one. */
  public static FunctionException quotingNoValue(int argIndex, String message) {
    return new FunctionException(argIndex, message, true);
  }

  public int argIndex() {
    return argIndex;
  }

  public boolean quotesNoValue() {
    return quotesNoValue;
  }
}
