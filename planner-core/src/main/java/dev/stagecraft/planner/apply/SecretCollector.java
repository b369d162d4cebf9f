package dev.stagecraft.planner.apply;

import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.plan.ConfigModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Records the values of one step that must never appear in clear (the action's sensitive values,
 * redacted from output, events and state): every sensitive argument value, the secret connection
 * arguments whatever their source, the secret attributes of {@code bastions} hops, key files read,
 * and each long line of a multi-line secret (output is redacted line by line).
 */
final class SecretCollector {
  /** Connection arguments that are secret even when their value is not marked sensitive. */
  static final Set<String> SECRET_CONNECTION_ARGUMENTS =
      Set.of(
          "password",
          "private_key",
          "bastion_password",
          "bastion_private_key",
          "proxy_user_password");

  /** The secret attributes of one {@code bastions} entry. */
  static final Set<String> SECRET_HOP_ATTRIBUTES = Set.of("password", "private_key");

  /** Lines of a multi-line secret at least this long are redacted on their own too. */
  static final int SECRET_LINE_MIN_LENGTH = 16;

  private final Set<String> secrets;

  /** Collects into {@code secrets} (the action's sensitive values). */
  SecretCollector(Set<String> secrets) {
    this.secrets = secrets;
  }

  /**
   * The value of the connection argument {@code name} with what is secret in it marked sensitive:
   * the whole value of a {@link #SECRET_CONNECTION_ARGUMENTS secret argument}, the {@link
   * #SECRET_HOP_ATTRIBUTES secret attributes} of each {@code bastions} hop.
   */
  static Value markConnectionSecrets(String name, Value value) {
    if (SECRET_CONNECTION_ARGUMENTS.contains(name)) {
      return value.mark(true);
    }
    return name.equals("bastions") ? markHopSecrets(value) : value;
  }

  /** {@code bastions} with the secret attributes of each hop marked sensitive. */
  static Value markHopSecrets(Value bastions) {
    if (!(bastions instanceof Value.ListValue list)) {
      return bastions;
    }
    List<Value> hops = new ArrayList<>();
    for (Value element : list.elements()) {
      if (element instanceof Value.ObjectValue hop) {
        Map<String, Value> attributes = new LinkedHashMap<>();
        hop.attributes()
            .forEach((k, v) -> attributes.put(k, v.mark(SECRET_HOP_ATTRIBUTES.contains(k))));
        hops.add(new Value.ObjectValue(attributes, hop.isSensitive()));
      } else {
        hops.add(element);
      }
    }
    return new Value.ListValue(hops, list.isSensitive());
  }

  /** Every sensitive part of {@code value} (as its text). */
  void collect(Value value) {
    ConfigModel.collectSensitive(value, secrets);
  }

  /** A secret that was not an evaluated value (the text of a key file); null and "" are not. */
  void add(String secret) {
    if (secret != null && !secret.isEmpty()) {
      secrets.add(secret);
    }
  }

  /**
   * Output is redacted line by line, so each long line of a multi-line secret (the body of a PEM
   * key) is a sensitive value of its own; the {@code -----BEGIN/END} armour lines are not.
   */
  void addLines(String secret) {
    if (secret == null || secret.indexOf('\n') < 0) {
      return;
    }
    for (String line : secret.split("\\R")) {
      String l = line.strip();
      if (l.length() >= SECRET_LINE_MIN_LENGTH && !l.startsWith("-----")) {
        secrets.add(l);
      }
    }
  }
}
