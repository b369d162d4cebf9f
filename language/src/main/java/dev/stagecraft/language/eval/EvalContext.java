package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.SourceRange;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * What the caller supplies to evaluate expressions: values for reference roots and the environment
 * of impure functions. Implementations must not throw.
 *
 * <p>A root resolves to an object value: {@code "var"} → object of input variables, {@code "local"}
 * → object of local values, {@code "stateful_provisioning"} → object of resource name → instance
 * (or list/map of instances for count/for_each), {@code "count"} → object {@code {index = n}},
 * {@code "each"} → {@code {key, value}}, {@code "path"} → {@code {module, root, cwd}}, and so on.
 * Unknown values (not known until apply) are {@link Value#unknown()}.
 */
public interface EvalContext {

  /** The value of a root name, or empty if the name is not defined in this context. */
  Optional<Value> resolve(String root);

  /** Base directory for {@code file()}, {@code fileexists()}, ... (the module directory). */
  default Path baseDirectory() {
    return Path.of(".");
  }

  /**
   * True when file functions may read only below {@link #baseDirectory()} (a server evaluating a
   * tenant's configuration must never read its own files); false for the CLI, which, like
   * Terraform, reads any path the user gives.
   */
  default boolean fileAccessConfined() {
    return false;
  }

  /**
   * Resolves a path given in the configuration against {@link #baseDirectory()}.
   *
   * @throws IllegalArgumentException when access is confined and the path leaves the base directory
   *     (absolute paths, {@code ..})
   */
  default Path resolvePath(String path) {
    Path base = baseDirectory().toAbsolutePath().normalize();
    Path resolved = base.resolve(path).normalize();
    if (fileAccessConfined() && Path.of(path).isAbsolute()) {
      throw new IllegalArgumentException(
          "\""
              + path
              + "\": absolute paths cannot be read on the server; put the file in the"
              + " configuration directory or pass its content in a variable");
    }
    if (fileAccessConfined() && !resolved.startsWith(base)) {
      throw new IllegalArgumentException(
          "\""
              + path
              + "\" is outside the configuration directory; on the server a configuration may"
              + " only read the files uploaded with it");
    }
    return resolved;
  }

  /** Clock for {@code timestamp()}. */
  default Clock clock() {
    return Clock.systemUTC();
  }

  /** Source of ids for {@code uuid()}. */
  default Supplier<UUID> uuids() {
    return UUID::randomUUID;
  }

  /**
   * True while planning (and validating): impure functions ({@code timestamp()}, {@code uuid()})
   * then evaluate to unknown, shown {@code (known after apply)}, as in Terraform, whose plan walk
   * evaluates them as unpredictable. False when applying, and for callers that want a value now.
   */
  default boolean impureFunctionsUnknown() {
    return false;
  }

  /**
   * The result of an impure function's call at {@code site} when values are known (applying):
   * {@code call} computes a fresh one. A context may record one result per call site, so that an
   * expression evaluated again in the same apply gives the same value ({@link CallSiteValues}).
   */
  default Value impureResult(String function, SourceRange site, Supplier<Value> call) {
    return call.get();
  }

  /**
   * The plan's timestamp, for {@code plantimestamp()}: known while planning, and the same instant
   * when the plan is applied later (Terraform records it in the plan).
   */
  default Instant planTimestamp() {
    return clock().instant();
  }

  /**
   * The budget evaluations with this context count against (a plan's, shared by all its
   * evaluations), or null: each evaluation then gets a budget of its own with the default limits.
   */
  default EvalBudget budget() {
    return null;
  }
}
