package dev.stagecraft.planner.apply;

import static dev.stagecraft.planner.apply.ConnectionResolver.orDefault;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * The hops to a connection's host: the {@code bastions} list, or the single {@code bastion_*} hop.
 * A hop's port, user and credentials default to the connection's (its certificate only when the hop
 * uses the connection's key); hop keys are secrets line by line.
 */
final class BastionHops {
  /**
   * The attributes of one {@code bastions} entry; the secret ones are {@link
   * SecretCollector#SECRET_HOP_ATTRIBUTES}.
   */
  static final List<String> HOP_ATTRIBUTES =
      List.of("host", "port", "user", "password", "private_key", "certificate", "host_key");

  private static final List<String> SINGLE_HOP_ARGUMENTS =
      List.of(
          "bastion_port",
          "bastion_user",
          "bastion_password",
          "bastion_private_key",
          "bastion_certificate",
          "bastion_host_key");

  /** What a hop inherits from its connection. */
  record Defaults(int port, String user, String password, String privateKey, String certificate) {}

  private final Diagnostics diagnostics;
  private final SecretCollector secrets;

  BastionHops(Diagnostics diagnostics, SecretCollector secrets) {
    this.diagnostics = diagnostics;
    this.secrets = secrets;
  }

  /**
   * The hops of {@code conn}, nearest first: {@code bastions}, or the single {@code bastion_*} hop;
   * none (with warnings for stray bastion_*) without. Both at once is an error.
   */
  List<SshConnection.Bastion> bastions(StepArguments conn, Defaults defaults) {
    String bastionHost = conn.string("bastion_host");
    boolean single = bastionHost != null && !bastionHost.isEmpty();
    if (conn.values.containsKey("bastions")) {
      if (!single) {
        return hops(conn, defaults);
      }
      diagnostics.error(
          "Conflicting connection arguments",
          "A connection accepts only one of bastion_host (a single hop, with bastion_*) and"
              + " bastions (a list of hops, nearest first): move the bastion_* hop into bastions"
              + " as its first entry, or remove bastions.",
          conn.decl("bastions").range());
    } else if (single) {
      return List.of(singleHop(conn, bastionHost, defaults));
    } else {
      for (String name : SINGLE_HOP_ARGUMENTS) {
        if (conn.values.containsKey(name)) {
          diagnostics.warning(
              "Bastion argument without bastion_host",
              name + " has no effect without bastion_host in the same connection block.",
              conn.decl(name).range());
        }
      }
    }
    return List.of();
  }

  private SshConnection.Bastion singleHop(StepArguments conn, String host, Defaults defaults) {
    String ownKey = conn.string("bastion_private_key");
    String key = orDefault(ownKey, defaults.privateKey());
    secrets.addLines(key);
    // A certificate belongs to one key: the connection's certificate goes with its key only.
    String certificate =
        orDefault(
            conn.string("bastion_certificate"), ownKey == null ? defaults.certificate() : null);
    SshCertificates.check(
        diagnostics, certificate, key, "bastion_certificate", "bastion_private_key", conn);
    return new SshConnection.Bastion(
        host,
        conn.wholeNumber("bastion_port", defaults.port(), 1, 65535),
        orDefault(conn.string("bastion_user"), defaults.user()),
        orDefault(conn.string("bastion_password"), defaults.password()),
        key,
        certificate,
        conn.string("bastion_host_key"),
        List.of());
  }

  /**
   * The {@code bastions} list: objects {@code {host, port, user, password, private_key,
   * certificate, host_key}}, nearest first; {@code host} is required. Errors point at the {@code
   * bastions} argument.
   */
  private List<SshConnection.Bastion> hops(StepArguments conn, Defaults defaults) {
    SourceRange range = conn.decl("bastions").range();
    if (!(conn.values.get("bastions") instanceof Value.ListValue list)) {
      diagnostics.error(
          "Invalid argument value",
          "The argument \"bastions\" must be a list of objects such as [{ host = \"jump1\", user"
              + " = \"ops\" }, { host = \"jump2\" }] (nearest hop first); found "
              + conn.values.get("bastions").typeName()
              + ".",
          range);
      return List.of();
    }
    List<SshConnection.Bastion> hops = new ArrayList<>();
    for (int i = 0; i < list.elements().size(); i++) {
      String what = "bastions[" + i + "]";
      if (list.elements().get(i) instanceof Value.ObjectValue hop) {
        hops.add(hop(hop, what, range, defaults));
      } else {
        diagnostics.error(
            "Invalid argument value",
            what
                + " must be an object with the attributes "
                + String.join(", ", HOP_ATTRIBUTES)
                + "; found "
                + list.elements().get(i).typeName()
                + ".",
            range);
      }
    }
    return hops;
  }

  private SshConnection.Bastion hop(
      Value.ObjectValue hop, String what, SourceRange range, Defaults defaults) {
    checkHopAttributes(hop, what, range);
    String host = hopString(hop, "host", what, range);
    if (host == null || host.isEmpty()) {
      diagnostics.error(
          "Missing bastion host",
          what + " has no \"host\" (or it is null or empty): every hop needs host = \"...\".",
          range);
    }
    int hopPort = hopPort(hop, what, range, defaults.port());
    String ownKey = hopString(hop, "private_key", what, range);
    String hopKey = orDefault(ownKey, defaults.privateKey());
    secrets.addLines(hopKey);
    String ownCertificate = hopString(hop, "certificate", what, range);
    if (ownCertificate != null) {
      SshCertificates.report(
          diagnostics, ownCertificate, hopKey, what + ".certificate", what + ".private_key", range);
    }
    return new SshConnection.Bastion(
        host,
        hopPort,
        orDefault(hopString(hop, "user", what, range), defaults.user()),
        orDefault(hopString(hop, "password", what, range), defaults.password()),
        hopKey,
        orDefault(ownCertificate, ownKey == null ? defaults.certificate() : null),
        hopString(hop, "host_key", what, range),
        List.of());
  }

  /** A hop's port: {@code port} when it sets none (or an invalid one, with an error). */
  private int hopPort(Value.ObjectValue hop, String what, SourceRange range, int port) {
    String portText = hopString(hop, "port", what, range);
    int hopPort = port;
    if (portText != null) {
      try {
        hopPort = Integer.parseInt(portText.strip());
      } catch (NumberFormatException e) {
        hopPort = -1;
      }
      if (hopPort < 1 || hopPort > 65535) {
        diagnostics.error(
            "Invalid argument value",
            what + ".port must be a whole number from 1 to 65535; found " + portText + ".",
            range);
        hopPort = port;
      }
    }
    return hopPort;
  }

  private void checkHopAttributes(Value.ObjectValue hop, String what, SourceRange range) {
    for (String name : hop.attributes().keySet()) {
      if (!HOP_ATTRIBUTES.contains(name)) {
        diagnostics.error(
            "Unsupported bastion attribute",
            what
                + " has an attribute \""
                + name
                + "\", which a hop does not accept; the attributes are "
                + String.join(", ", HOP_ATTRIBUTES)
                + ".",
            range);
      }
    }
  }

  /**
   * A primitive attribute of a hop as text; null when absent or null; an error when not primitive.
   */
  private String hopString(Value.ObjectValue hop, String name, String what, SourceRange range) {
    Value v = hop.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (v instanceof Value.ListValue || v instanceof Value.ObjectValue) {
      diagnostics.error(
          "Invalid argument value",
          what
              + "."
              + name
              + " must be "
              + (name.equals("port") ? "a number" : "a string")
              + "; found "
              + v.typeName()
              + ".",
          range);
      return null;
    }
    return v.asString();
  }
}
