package dev.stagecraft.language.eval.functions;

import dev.stagecraft.language.eval.Functions;

/**
 * Terraform's built-in functions, one class per category of Terraform's function reference
 * (numeric, string, collection, encoding, filesystem, date and time, hash and crypto, IP network,
 * type conversion); {@link Functions#standard()} is this library. To add a function: write a static
 * method taking {@code (List<Value>, EvalContext)} in its category's class and register it there
 * with its arity. Arguments arrive wholly known and unmarked unless the definition says otherwise
 * ({@link dev.stagecraft.language.eval.FunctionDef}); a bad argument throws {@link
 * dev.stagecraft.language.eval.FunctionException}.
 */
public final class StandardLibrary {
  private StandardLibrary() {}

  /** {@code f} with every built-in function added. */
  public static Functions register(Functions f) {
    f = NumericFunctions.register(f);
    f = StringFunctions.register(f);
    f = CollectionFunctions.register(f);
    f = EncodingFunctions.register(f);
    f = FilesystemFunctions.register(f);
    f = DateTimeFunctions.register(f);
    f = HashFunctions.register(f);
    f = IpNetworkFunctions.register(f);
    return ConversionFunctions.register(f);
  }
}
