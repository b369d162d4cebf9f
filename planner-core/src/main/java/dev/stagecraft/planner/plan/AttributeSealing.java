package dev.stagecraft.planner.plan;

import dev.stagecraft.language.eval.Value;
import dev.stagecraft.schemas.seal.SealedValues;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Sealed attribute values (design §8, docs/adr/0024) for one tenant's workspace: the planner seals
 * the sensitive values inside the attributes it dispatches ({@link #seal}), so they travel on Kafka
 * and land in state only as {@link SealedValues sealed strings}, and opens the sealed values of the
 * prior state before it plans ({@link #open}), so the plan compares clear values: an unchanged
 * secret is a no-op even after a key rotation, a changed one is a change.
 *
 * <p>Without a key ({@link #off()}, or a keyring that cannot seal) nothing is sealed — the
 * documented "sealing off" mode of ADR 0008 — and a state holding sealed values cannot be planned.
 *
 * <p>Immutable and thread-safe.
 */
public final class AttributeSealing {
  private static final AttributeSealing OFF =
      new AttributeSealing(SecretsKeyring.none(), null, null);

  private final SecretsKeyring keyring;
  private final String tenant;
  private final String workspace;

  private AttributeSealing(SecretsKeyring keyring, String tenant, String workspace) {
    this.keyring = keyring;
    this.tenant = tenant;
    this.workspace = workspace;
  }

  /** No keyring: nothing is sealed; sealed prior values cannot be opened. */
  public static AttributeSealing off() {
    return OFF;
  }

  /** Seals and opens for {@code tenant}'s {@code workspace} with {@code keyring}. */
  public static AttributeSealing of(SecretsKeyring keyring, String tenant, String workspace) {
    return new AttributeSealing(
        Objects.requireNonNull(keyring, "keyring"),
        Objects.requireNonNull(tenant, "tenant"),
        Objects.requireNonNull(workspace, "workspace"));
  }

  /** True when {@link #seal} seals (a key is configured). */
  public boolean active() {
    return keyring.canSeal();
  }

  /**
   * A copy of {@code attributes} where the value at each of {@code paths} is sealed; values that
   * are absent or null stay as they are. Returns {@code attributes} itself when nothing is sealed
   * (no key, or no path).
   */
  public Map<String, Object> seal(
      String address, Map<String, Object> attributes, Collection<List<Object>> paths) {
    if (!active() || attributes == null || paths == null || paths.isEmpty()) {
      return attributes;
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> out = (Map<String, Object>) copy(attributes);
    for (List<Object> path : paths) {
      sealAt(out, path, 0, address, path);
    }
    return out;
  }

  /**
   * The prior state with every sealed attribute value opened, and the paths of the opened values
   * recorded on their instances ({@link PriorInstance#sensitivePaths()}). The v4 document is kept
   * as given (sealed values stay sealed there; the plan shows them as {@code (sensitive value)}).
   *
   * @throws SealedStateException when a sealed value cannot be opened: its key id is not in the
   *     keyring (named in the message), no keyring is configured, or it does not authenticate
   */
  public PriorState open(PriorState prior) {
    Map<String, PriorInstance> opened = new LinkedHashMap<>();
    boolean any = false;
    for (PriorInstance i : prior.instances().values()) {
      List<List<Object>> paths = new ArrayList<>();
      Object attributes = openAll(i.attributes(), new ArrayList<>(), i.address(), paths);
      if (paths.isEmpty()) {
        opened.put(i.address(), i);
        continue;
      }
      // with the paths the state lists in sensitive_attributes (e.g. from a pushed state)
      paths = union(paths, i.sensitivePaths());
      any = true;
      @SuppressWarnings("unchecked")
      Map<String, Object> clear = (Map<String, Object>) attributes;
      opened.put(
          i.address(),
          new PriorInstance(
              i.address(),
              i.type(),
              i.name(),
              clear,
              i.dependencies(),
              i.tainted(),
              i.createBeforeDestroy(),
              i.skipDestroy(),
              paths));
    }
    Map<String, Object> openedOutputs = new LinkedHashMap<>();
    prior
        .outputs()
        .forEach(
            (name, output) -> {
              if (output.get("value") instanceof String s && SealedValues.isSealed(s)) {
                openedOutputs.put(
                    name, openAll(s, new ArrayList<>(), outputAddress(name), new ArrayList<>()));
              }
            });
    return any || !openedOutputs.isEmpty()
        ? new PriorState(prior.serial(), prior.lineage(), opened, prior.document(), openedOutputs)
        : prior;
  }

  /**
   * A run's root outputs ({@link AppliedOutputs#toV4}) with the value of each sensitive one sealed
   * as one string (docs/adr/0064), so it reaches state, events and answers only sealed, as a
   * sensitive attribute value does. A value unchanged since {@code prior} keeps the sealed string
   * the state holds (sealing again would give another string, and the state service would record a
   * change that is none). Without a key nothing is sealed (ADR 0008's "sealing off").
   */
  public Map<String, Map<String, Object>> sealOutputs(
      Map<String, Map<String, Object>> outputs, PriorState prior) {
    if (!active()) {
      return outputs;
    }
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    outputs.forEach(
        (name, output) -> {
          Object value = output.get("value");
          if (!Boolean.TRUE.equals(output.get("sensitive"))
              || value == null
              || SealedValues.isSealed(value)) {
            out.put(name, output);
            return;
          }
          Object recorded = prior.recordedOutputValue(name);
          Map<String, Object> sealed = new LinkedHashMap<>(output);
          if (SealedValues.isSealed(recorded)
              && prior.openedOutputs().containsKey(name)
              && Objects.equals(
                  Planner.normalize(prior.openedOutputs().get(name)), Planner.normalize(value))) {
            sealed.put("value", recorded);
          } else {
            sealed.put("value", sealed(value, outputAddress(name), List.of()));
          }
          out.put(name, sealed);
        });
    return out;
  }

  /**
   * Another workspace's root outputs as its state service answered them (remote state, ADR 0063),
   * with each sealed value opened — this sealing must be of that workspace. A value that is not
   * sealed (a state pushed from Terraform) is kept as it is.
   *
   * @throws SealedStateException when a sealed value cannot be opened
   */
  public Map<String, Map<String, Object>> openOutputs(Map<String, Map<String, Object>> outputs) {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    outputs.forEach(
        (name, output) -> {
          if (output.get("value") instanceof String s && SealedValues.isSealed(s)) {
            Map<String, Object> opened = new LinkedHashMap<>(output);
            opened.put(
                "value", openAll(s, new ArrayList<>(), outputAddress(name), new ArrayList<>()));
            out.put(name, opened);
          } else {
            out.put(name, output);
          }
        });
    return out;
  }

  /** The address a sealed output value is bound to (its associated data): {@code output.NAME}. */
  static String outputAddress(String name) {
    return "output." + name;
  }

  /**
   * The paths inside attribute {@code name} whose value must be sealed: every value marked
   * sensitive (the whole marked value is one path), and every string containing one of {@code
   * sensitiveStrings} (a value derived from a secret without its mark).
   */
  public static List<List<Object>> sensitivePaths(
      String name, Value value, Set<String> sensitiveStrings) {
    List<List<Object>> out = new ArrayList<>();
    List<Object> path = new ArrayList<>();
    path.add(name);
    collect(value, path, sensitiveStrings, out);
    return out;
  }

  /**
   * The paths of {@code prior} still to seal in {@code attributes}: those whose value is written
   * unchanged (a sealed value stays sealed, e.g. under {@code ignore_changes} or at a delete).
   */
  public static List<List<Object>> unchangedPriorPaths(
      PriorInstance prior, Map<String, Object> attributes) {
    List<List<Object>> out = new ArrayList<>();
    if (prior == null) {
      return out;
    }
    for (List<Object> path : prior.sensitivePaths()) {
      Object before = at(prior.attributes(), path);
      Object after = at(attributes, path);
      if (after != null && Objects.equals(Planner.normalize(before), Planner.normalize(after))) {
        out.add(path);
      }
    }
    return out;
  }

  /** {@code a} followed by the paths of {@code b} not in it. */
  public static List<List<Object>> union(List<List<Object>> a, List<List<Object>> b) {
    Set<List<Object>> out = new LinkedHashSet<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }

  private static void collect(
      Value value, List<Object> path, Set<String> sensitive, List<List<Object>> out) {
    if (value.isNull() || !value.isWhollyKnown()) {
      return;
    }
    if (value.isSensitive()) {
      out.add(List.copyOf(path));
      return;
    }
    switch (value) {
      case Value.ObjectValue o ->
          o.attributes()
              .forEach(
                  (k, v) -> {
                    path.add(k);
                    collect(v, path, sensitive, out);
                    path.remove(path.size() - 1);
                  });
      case Value.ListValue l -> {
        for (int i = 0; i < l.elements().size(); i++) {
          path.add(i);
          collect(l.elements().get(i), path, sensitive, out);
          path.remove(path.size() - 1);
        }
      }
      case Value.StringValue s -> {
        if (Redaction.contains(s.value(), sensitive)) {
          out.add(List.copyOf(path));
        }
      }
      default -> {}
    }
  }

  private void sealAt(
      Object node, List<Object> path, int step, String address, List<Object> fullPath) {
    Object key = path.get(step);
    boolean last = step == path.size() - 1;
    if (node instanceof Map<?, ?> m && key instanceof String k && m.get(k) != null) {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) m;
      if (last) {
        if (!SealedValues.isSealed(map.get(k))) {
          map.put(k, sealed(map.get(k), address, fullPath));
        }
      } else {
        sealAt(map.get(k), path, step + 1, address, fullPath);
      }
    } else if (node instanceof List<?> l
        && key instanceof Integer i
        && i >= 0
        && i < l.size()
        && l.get(i) != null) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) l;
      if (last) {
        if (!SealedValues.isSealed(list.get(i))) {
          list.set(i, sealed(list.get(i), address, fullPath));
        }
      } else {
        sealAt(list.get(i), path, step + 1, address, fullPath);
      }
    }
  }

  private String sealed(Object value, String address, List<Object> path) {
    return SealedValues.seal(
        keyring, value, SealedValues.context(tenant, workspace, address, path));
  }

  private Object openAll(
      Object value, List<Object> path, String address, List<List<Object>> opened) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach(
          (k, v) -> {
            path.add(String.valueOf(k));
            out.put(String.valueOf(k), openAll(v, path, address, opened));
            path.remove(path.size() - 1);
          });
      return out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < l.size(); i++) {
        path.add(i);
        out.add(openAll(l.get(i), path, address, opened));
        path.remove(path.size() - 1);
      }
      return out;
    }
    if (value instanceof String s && SealedValues.isSealed(s)) {
      if (tenant == null) {
        throw new SealedStateException(
            "The state of this workspace holds a sealed value at "
                + address
                + pathText(path)
                + " (key id '"
                + SealedValues.kidOf(s)
                + "'), but this planner has no secrets keyring: set "
                + SecretsKeyring.ENV
                + " to the keyring that sealed it.");
      }
      try {
        Object clear =
            SealedValues.open(keyring, s, SealedValues.context(tenant, workspace, address, path));
        opened.add(List.copyOf(path));
        return clear;
      } catch (UnsealException e) {
        throw new SealedStateException(
            "Cannot open the sealed value at "
                + address
                + pathText(path)
                + " in the state of workspace \""
                + workspace
                + "\": "
                + e.getMessage());
      }
    }
    return value;
  }

  /** {@code .triggers["pw"]} / {@code .list[0]}. */
  static String pathText(List<Object> path) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < path.size(); i++) {
      Object step = path.get(i);
      if (i == 0) {
        b.append('.').append(step);
      } else if (step instanceof Integer) {
        b.append('[').append(step).append(']');
      } else {
        b.append("[\"").append(step).append("\"]");
      }
    }
    return b.toString();
  }

  private static Object at(Object node, List<Object> path) {
    Object current = node;
    for (Object step : path) {
      if (current instanceof Map<?, ?> m && step instanceof String k) {
        current = m.get(k);
      } else if (current instanceof List<?> l && step instanceof Integer i && i < l.size()) {
        current = l.get(i);
      } else {
        return null;
      }
    }
    return current;
  }

  private static Object copy(Object value) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, v) -> out.put(String.valueOf(k), copy(v)));
      return out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(v -> out.add(copy(v)));
      return out;
    }
    return value;
  }

  /**
   * A sealed value in the prior state cannot be opened. The message names the value's place and key
   * id and says what to do; it holds no secret.
   */
  public static final class SealedStateException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    SealedStateException(String message) {
      super(message);
    }
  }
}
