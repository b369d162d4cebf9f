package dev.stagecraft.language.eval;

import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;

/** An immutable {@link EvalContext} built from maps; handy for callers and tests. */
public final class SimpleEvalContext implements EvalContext {
  private final Map<String, Value> roots;
  private final Path baseDir;
  private final Clock clock;
  private final Supplier<UUID> uuids;
  private final boolean confined;
  private final EvalBudget budget;

  private SimpleEvalContext(
      Map<String, Value> roots, Path baseDir, Clock clock, Supplier<UUID> uuids) {
    this(roots, baseDir, clock, uuids, false, null);
  }

  private SimpleEvalContext(
      Map<String, Value> roots,
      Path baseDir,
      Clock clock,
      Supplier<UUID> uuids,
      boolean confined,
      EvalBudget budget) {
    this.roots = Map.copyOf(roots);
    this.baseDir = baseDir;
    this.clock = clock;
    this.uuids = uuids;
    this.confined = confined;
    this.budget = budget;
  }

  /** File functions may read only below the base directory (see EvalContext). */
  public SimpleEvalContext withFileAccessConfined(boolean confined) {
    return new SimpleEvalContext(roots, baseDir, clock, uuids, confined, budget);
  }

  /** Evaluations with this context count against {@code budget} (see EvalContext). */
  public SimpleEvalContext withBudget(EvalBudget budget) {
    return new SimpleEvalContext(roots, baseDir, clock, uuids, confined, budget);
  }

  @Override
  public EvalBudget budget() {
    return budget;
  }

  @Override
  public boolean fileAccessConfined() {
    return confined;
  }

  public static SimpleEvalContext empty() {
    return new SimpleEvalContext(Map.of(), Path.of("."), Clock.systemUTC(), UUID::randomUUID);
  }

  /** Adds or replaces a root. */
  public SimpleEvalContext withRoot(String name, Value value) {
    Map<String, Value> m = new HashMap<>(roots);
    m.put(name, value);
    return new SimpleEvalContext(m, baseDir, clock, uuids, confined, budget);
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
    return new SimpleEvalContext(roots, dir, clock, uuids, confined, budget);
  }

  public SimpleEvalContext withClock(Clock c) {
    return new SimpleEvalContext(roots, baseDir, c, uuids, confined, budget);
  }

  public SimpleEvalContext withUuids(Supplier<UUID> u) {
    return new SimpleEvalContext(roots, baseDir, clock, u, confined, budget);
  }

  @Override
  public Optional<Value> resolve(String root) {
    return Optional.ofNullable(roots.get(root));
  }

  @Override
  public Path baseDirectory() {
    return baseDir;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public Supplier<UUID> uuids() {
    return uuids;
  }
}
