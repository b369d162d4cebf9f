package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.SourceRange;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;

/** An immutable {@link EvalContext} built from maps; handy for callers and tests. */
public final class SimpleEvalContext implements EvalContext {
  private final Map<String, Value> roots;
  private final Env env;

  /**
   * Everything but the roots.
   *
   * @param impureUnknown see {@link EvalContext#impureFunctionsUnknown()}
   * @param planTimestamp for {@code plantimestamp()}; null: the clock's instant
   * @param callSites the results of impure calls recorded per call site, or null (a fresh result at
   *     every call)
   * @param scope the scope of those records (e.g. the instance address)
   */
  private record Env(
      Path baseDir,
      Clock clock,
      Supplier<UUID> uuids,
      boolean confined,
      EvalBudget budget,
      boolean impureUnknown,
      Instant planTimestamp,
      CallSiteValues callSites,
      String scope) {}

  private SimpleEvalContext(Map<String, Value> roots, Env env) {
    this.roots = Map.copyOf(roots);
    this.env = env;
  }

  private SimpleEvalContext with(Env e) {
    return new SimpleEvalContext(roots, e);
  }

  /** File functions may read only below the base directory (see EvalContext). */
  public SimpleEvalContext withFileAccessConfined(boolean confined) {
    return with(
        new Env(
            env.baseDir,
            env.clock,
            env.uuids,
            confined,
            env.budget,
            env.impureUnknown,
            env.planTimestamp,
            env.callSites,
            env.scope));
  }

  /** Evaluations with this context count against {@code budget} (see EvalContext). */
  public SimpleEvalContext withBudget(EvalBudget budget) {
    return with(
        new Env(
            env.baseDir,
            env.clock,
            env.uuids,
            env.confined,
            budget,
            env.impureUnknown,
            env.planTimestamp,
            env.callSites,
            env.scope));
  }

  /** Impure functions evaluate to unknown (planning), see {@link #impureFunctionsUnknown()}. */
  public SimpleEvalContext withImpureFunctionsUnknown(boolean unknown) {
    return with(
        new Env(
            env.baseDir,
            env.clock,
            env.uuids,
            env.confined,
            env.budget,
            unknown,
            env.planTimestamp,
            env.callSites,
            env.scope));
  }

  /**
   * Impure calls give one result per call site in {@code scope}, recorded in {@code callSites}
   * (null: a fresh result at every call).
   */
  public SimpleEvalContext withCallSiteValues(CallSiteValues callSites, String scope) {
    return with(
        new Env(
            env.baseDir,
            env.clock,
            env.uuids,
            env.confined,
            env.budget,
            env.impureUnknown,
            env.planTimestamp,
            callSites,
            scope));
  }

  /** The instant {@code plantimestamp()} gives. */
  public SimpleEvalContext withPlanTimestamp(Instant planTimestamp) {
    return with(
        new Env(
            env.baseDir,
            env.clock,
            env.uuids,
            env.confined,
            env.budget,
            env.impureUnknown,
            planTimestamp,
            env.callSites,
            env.scope));
  }

  /**
   * Impure functions and {@code plantimestamp()} as in {@code outer} (for a template rendered by
   * {@code templatefile()}): unknown while planning, the same plan timestamp; a fresh result at
   * every call otherwise.
   */
  public SimpleEvalContext withImpureFunctionsOf(EvalContext outer) {
    return withImpureFunctionsUnknown(outer.impureFunctionsUnknown())
        .withPlanTimestamp(outer.planTimestamp());
  }

  @Override
  public EvalBudget budget() {
    return env.budget;
  }

  @Override
  public boolean fileAccessConfined() {
    return env.confined;
  }

  @Override
  public boolean impureFunctionsUnknown() {
    return env.impureUnknown;
  }

  @Override
  public Value impureResult(String function, SourceRange site, Supplier<Value> call) {
    return env.callSites == null
        ? call.get()
        : env.callSites.get(env.scope == null ? "" : env.scope, function, site, call);
  }

  @Override
  public Instant planTimestamp() {
    return env.planTimestamp == null ? env.clock.instant() : env.planTimestamp;
  }

  public static SimpleEvalContext empty() {
    return new SimpleEvalContext(
        Map.of(),
        new Env(
            Path.of("."),
            Clock.systemUTC(),
            UUID::randomUUID,
            false,
            null,
            false,
            null,
            null,
            null));
  }

  /** Adds or replaces a root. */
  public SimpleEvalContext withRoot(String name, Value value) {
    Map<String, Value> m = new HashMap<>(roots);
    m.put(name, value);
    return new SimpleEvalContext(m, env);
  }

  /** Adds an input variable ({@code var.name}). */
  public SimpleEvalContext withVariable(String name, Value value) {
    return withAttribute("var", name, value);
  }

  /** Adds a local value ({@code local.name}). */
  public SimpleEvalContext withLocal(String name, Value value) {
    return withAttribute("local", name, value);
  }

  /** Sets {@code root.name} (e.g. a resource {@code stateful_provisioning.app}). */
  public SimpleEvalContext withAttribute(String root, String name, Value value) {
    Map<String, Value> attrs = new TreeMap<>();
    if (roots.get(root) instanceof Value.ObjectValue o) {
      attrs.putAll(o.attributes());
    }
    attrs.put(name, value);
    return withRoot(root, Value.object(attrs));
  }

  public SimpleEvalContext withBaseDirectory(Path dir) {
    return with(
        new Env(
            dir,
            env.clock,
            env.uuids,
            env.confined,
            env.budget,
            env.impureUnknown,
            env.planTimestamp,
            env.callSites,
            env.scope));
  }

  public SimpleEvalContext withClock(Clock c) {
    return with(
        new Env(
            env.baseDir,
            c,
            env.uuids,
            env.confined,
            env.budget,
            env.impureUnknown,
            env.planTimestamp,
            env.callSites,
            env.scope));
  }

  public SimpleEvalContext withUuids(Supplier<UUID> u) {
    return with(
        new Env(
            env.baseDir,
            env.clock,
            u,
            env.confined,
            env.budget,
            env.impureUnknown,
            env.planTimestamp,
            env.callSites,
            env.scope));
  }

  @Override
  public Optional<Value> resolve(String root) {
    return Optional.ofNullable(roots.get(root));
  }

  @Override
  public Path baseDirectory() {
    return env.baseDir;
  }

  @Override
  public Clock clock() {
    return env.clock;
  }

  @Override
  public Supplier<UUID> uuids() {
    return env.uuids;
  }
}
