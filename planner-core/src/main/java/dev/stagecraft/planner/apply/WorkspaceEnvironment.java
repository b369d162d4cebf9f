package dev.stagecraft.planner.apply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A workspace's environment variables for every {@code local-exec} step (docs/adr/0078): given to
 * the step under the provisioner's own {@code environment}, whose entries win (as Terraform's
 * {@code environment} adds to the inherited process environment). The values named in {@code
 * sensitive} are secrets: a step that receives one carries them (sealed in its dispatch, redacted
 * from its output). Immutable.
 *
 * @param values environment variable name → value
 * @param sensitive the names among {@code values} whose values are secret
 */
record WorkspaceEnvironment(Map<String, String> values, Set<String> sensitive) {
  static final WorkspaceEnvironment NONE = new WorkspaceEnvironment(Map.of(), Set.of());

  WorkspaceEnvironment {
    values = values == null ? Map.of() : Map.copyOf(values);
    sensitive = sensitive == null ? Set.of() : Set.copyOf(sensitive);
  }

  /** The environment of a step whose provisioner sets {@code own}: this one under it. */
  Map<String, String> under(Map<String, String> own) {
    Map<String, String> out = new LinkedHashMap<>(new TreeMap<>(values));
    out.putAll(own);
    return out;
  }

  /**
   * The secret values a step whose provisioner sets {@code own} receives from this environment
   * (those {@code own} does not replace; empty values hide nothing).
   */
  List<String> secretsUnder(Map<String, String> own) {
    List<String> out = new ArrayList<>();
    new TreeMap<>(values)
        .forEach(
            (name, value) -> {
              if (sensitive.contains(name) && !own.containsKey(name) && !value.isEmpty()) {
                out.add(value);
              }
            });
    return out;
  }

  /** Names only: never a value. */
  @Override
  public String toString() {
    return "WorkspaceEnvironment["
        + new TreeMap<>(values).keySet()
        + ", sensitive="
        + sensitive
        + "]";
  }
}
