package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.SourceRange;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The results of impure function calls ({@code timestamp()}, {@code uuid()}) during one apply: one
 * result per call site and scope, as Terraform evaluates each expression once per apply. A local
 * value written {@code uuid()} is then the same uuid in every resource and provisioner that reads
 * it, and the value a resource stores in state is the one its provisioners see, however often the
 * apply evaluates the expression again. The scope tells apart the instances of a repeated resource
 * ({@code null_resource.a[0]}, {@code null_resource.a[1]} each get a uuid of their own).
 *
 * <p>Thread-safe: an apply may resolve actions from several threads.
 */
public final class CallSiteValues {
  private final Map<String, Value> results = new ConcurrentHashMap<>();

  /** The result recorded for this call site in {@code scope}, computed at its first call. */
  public Value get(String scope, String function, SourceRange site, Supplier<Value> call) {
    String key =
        scope
            + "|"
            + function
            + "@"
            + (site == null
                ? "?"
                : site.file() + ":" + site.start().offset() + "-" + site.end().offset());
    Value known = results.get(key);
    if (known != null) {
      return known;
    }
    Value computed = call.get();
    Value raced = results.putIfAbsent(key, computed);
    return raced == null ? computed : raced;
  }
}
