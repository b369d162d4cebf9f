package dev.stagecraft.language.eval;

import java.util.List;

/**
 * One function of the function table.
 *
 * <p>Unless {@code acceptsUnknown}, a call with any not-wholly-known argument returns unknown
 * without calling {@code impl}. Unless {@code handlesMarks}, arguments are passed with all
 * sensitive marks removed and the result is marked sensitive if any argument contained a mark.
 *
 * <p>An {@code impure} function ({@code timestamp}, {@code uuid}) gives a different result at every
 * call. As in Terraform, its result is unknown while planning ({@link
 * EvalContext#impureFunctionsUnknown()}) and known when applying, one result per call site and
 * scope ({@link EvalContext#impureResult}).
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
    boolean impure,
    Impl impl) {

  /** The implementation. Throws {@link FunctionException} for bad arguments. */
  @FunctionalInterface
  public interface Impl {
    Value call(List<Value> args, EvalContext ctx);
  }

  public static FunctionDef of(String name, int minArgs, int maxArgs, Impl impl) {
    return new FunctionDef(name, minArgs, maxArgs, false, false, false, impl);
  }

  public FunctionDef acceptingUnknown() {
    return new FunctionDef(name, minArgs, maxArgs, true, handlesMarks, impure, impl);
  }

  public FunctionDef handlingMarks() {
    return new FunctionDef(name, minArgs, maxArgs, acceptsUnknown, true, impure, impl);
  }

  /** Marks the function impure (see the class comment). */
  public FunctionDef asImpure() {
    return new FunctionDef(name, minArgs, maxArgs, acceptsUnknown, handlesMarks, true, impl);
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
