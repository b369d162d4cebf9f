package dev.stagecraft.language.eval;

import java.util.List;

/**
 * One function of the function table.
 *
 * <p>Unless {@code acceptsUnknown}, a call with any not-wholly-known argument returns unknown
 * without calling {@code impl}. Unless {@code handlesMarks}, arguments are passed with all
 * sensitive marks removed and the result is marked sensitive if any argument contained a mark.
 *
 * @param minArgs minimum number of arguments
 * @param maxArgs maximum number of arguments, or -1 for variadic
 */
public record FunctionDef(
    String name,
    int minArgs,
    int maxArgs,
    boolean acceptsUnknown,
    boolean handlesMarks,
    Impl impl) {

  /** The implementation. Throws {@link FunctionException} for bad arguments. */
  @FunctionalInterface
  public interface Impl {
    Value call(List<Value> args, EvalContext ctx);
  }

  public static FunctionDef of(String name, int minArgs, int maxArgs, Impl impl) {
    return new FunctionDef(name, minArgs, maxArgs, false, false, impl);
  }

  public FunctionDef acceptingUnknown() {
    return new FunctionDef(name, minArgs, maxArgs, true, handlesMarks, impl);
  }

  public FunctionDef handlingMarks() {
    return new FunctionDef(name, minArgs, maxArgs, acceptsUnknown, true, impl);
  }

  public String arity() {
    if (maxArgs == minArgs) {
      return minArgs + " argument" + (minArgs == 1 ? "" : "s");
    }
    return maxArgs < 0
        ? "at least " + minArgs + " argument" + (minArgs == 1 ? "" : "s")
        : minArgs + " to " + maxArgs + " arguments";
  }
}
