package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The connection of one provisioner step: evaluates its arguments (as Terraform, the provisioner's
 * own connection arguments mask the resource's of the same name) and, for the steps that run over
 * SSH, checks them into an {@link SshConnection} (host, port, user, credentials, key file,
 * certificate, bastion hops, options). Every secret goes to the scope's {@link SecretCollector}.
 */
final class ConnectionResolver {
  private static final int DEFAULT_SSH_PORT = 22;
  private static final String DEFAULT_SSH_USER = "root";
  private static final int DEFAULT_CONNECTION_TIMEOUT_SECONDS = 300;

  private final StepScope scope;
  private final Diagnostics diagnostics;
  private final Optional<BlockDecl> block;
  private final StepArguments conn;

  /** Evaluates the connection of the scope's provisioner, else {@code resourceConnection}. */
  ConnectionResolver(StepScope scope, Optional<BlockDecl> resourceConnection) {
    this.scope = scope;
    this.diagnostics = scope.diagnostics();
    Map<String, AttributeDecl> decls = new LinkedHashMap<>();
    resourceConnection.ifPresent(b -> decls.putAll(b.attributes()));
    scope.provisioner().connection().ifPresent(b -> decls.putAll(b.attributes()));
    this.block = scope.provisioner().connection().or(() -> resourceConnection);
    this.conn = scope.evaluate(decls, true);
  }

  /** The evaluated connection attributes as plain Java values (empty when none). */
  Map<String, Object> attributes() {
    Map<String, Object> attributes = new LinkedHashMap<>();
    conn.values.forEach((name, value) -> attributes.put(name, value.toJava()));
    return attributes;
  }

  /** The SSH connection of a remote-exec or file step; null (with an error) when incomplete. */
  SshConnection ssh() {
    if (block.isEmpty()) {
      diagnostics.error(
          "Missing connection",
          scope.where()
              + " needs a connection block, in the provisioner or in the resource (connection {"
              + " type = \"ssh\", host = ... }).",
          scope.provisioner().range());
      return null;
    }
    String type = conn.string("type");
    if (type != null && !type.equals("ssh")) {
      diagnostics.error(
          "Unsupported connection type",
          "The connection type \"" + type + "\" is not supported; the only type is \"ssh\".",
          conn.decl("type").range());
      return null; // the only error: the other arguments are another protocol's
    }
    String host = host(block.get().range());
    int port = conn.wholeNumber("port", DEFAULT_SSH_PORT, 1, 65535);
    String user = orDefault(conn.string("user"), DEFAULT_SSH_USER);
    String password = conn.string("password");
    String privateKey = privateKey();
    scope.secrets().addLines(privateKey);
    String certificate = conn.string("certificate");
    SshCertificates.check(
        diagnostics, certificate, privateKey, "certificate", "private_key or key_file", conn);
    String hostKey = conn.string("host_key");
    int timeout = conn.seconds("timeout", DEFAULT_CONNECTION_TIMEOUT_SECONDS);
    List<SshConnection.Bastion> bastions =
        new BastionHops(diagnostics, scope.secrets())
            .bastions(
                conn, new BastionHops.Defaults(port, user, password, privateKey, certificate));
    SshConnection ssh =
        ConnectionOptions.apply(
            new SshConnection(
                host, port, user, password, privateKey, certificate, hostKey, timeout, bastions),
            conn,
            diagnostics);
    return diagnostics.hasErrors() ? null : ssh;
  }

  private String host(SourceRange blockRange) {
    String host = conn.string("host");
    if (host == null || host.isEmpty()) {
      diagnostics.error(
          "Missing connection host",
          "The connection of "
              + scope.where()
              + " has no \"host\" (or it is null or empty): set host = \"...\" in the connection"
              + " block.",
          conn.has("host") ? conn.decl("host").range() : blockRange);
    }
    return host;
  }

  /** {@code private_key}, or the text of {@code key_file} (a secret too); not both. */
  private String privateKey() {
    String privateKey = conn.string("private_key");
    String keyFile = conn.string("key_file");
    if (keyFile == null) {
      return privateKey;
    }
    if (privateKey != null) {
      diagnostics.error(
          "Conflicting connection arguments",
          "A connection accepts only one of private_key (the key text) and key_file (its path).",
          conn.decl("key_file").range());
      return privateKey;
    }
    String key = scope.files().readText(keyFile, conn.decl("key_file"), "key file");
    scope.secrets().add(key);
    return key;
  }

  static String orDefault(String value, String dflt) {
    return value == null ? dflt : value;
  }
}
