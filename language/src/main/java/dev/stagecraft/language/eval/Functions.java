package dev.stagecraft.language.eval;

import dev.stagecraft.language.eval.functions.StandardLibrary;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable function table. {@link #standard()} holds the built-in library ({@link
 * StandardLibrary}, package {@code dev.stagecraft.language.eval.functions}); add more with {@link
 * #with(FunctionDef)}. {@code try} and {@code can} are special forms handled by the evaluator
 * itself (their arguments are evaluated lazily).
 */
public final class Functions {
  /** Names handled by the evaluator directly. */
  public static final Set<String> SPECIAL_FORMS = Set.of("try", "can");

  private static final Functions STANDARD = StandardLibrary.register(new Functions(Map.of()));

  private final Map<String, FunctionDef> defs;

  private Functions(Map<String, FunctionDef> defs) {
    this.defs = Collections.unmodifiableMap(new TreeMap<>(defs));
  }

  public static Functions standard() {
    return STANDARD;
  }

  public static Functions none() {
    return new Functions(Map.of());
  }

  /** A table with {@code def} added (replacing any function with the same name). */
  public Functions with(FunctionDef def) {
    Map<String, FunctionDef> m = new TreeMap<>(defs);
    m.put(def.name(), def);
    return new Functions(m);
  }

  public Optional<FunctionDef> get(String name) {
    return Optional.ofNullable(defs.get(name));
  }

  /** All function names, special forms included. */
  public Set<String> names() {
    Set<String> s = new TreeSet<>(defs.keySet());
    s.addAll(SPECIAL_FORMS);
    return s;
  }
}
