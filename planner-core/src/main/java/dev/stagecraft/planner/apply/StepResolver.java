package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.planner.plan.ConfigModel;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Builds one {@link ProvisionerStep} at dispatch time: evaluates the provisioner's arguments and
 * its connection (the provisioner's own, else the resource's), reads the files it names ({@code
 * script}, {@code scripts}, {@code source}, {@code key_file}) relative to the configuration
 * directory, and records every secret (passwords, private keys) in the action's sensitive values.
 * One instance per step; not thread-safe.
 */
final class StepResolver {
  static final Set<String> SECRET_CONNECTION_ARGUMENTS =
      Set.of(
          "password",
          "private_key",
          "bastion_password",
          "bastion_private_key",
          "proxy_user_password");

  /**
   * The attributes of one {@code bastions} entry; the secret ones are {@link
   * #SECRET_HOP_ATTRIBUTES}.
   */
  static final List<String> HOP_ATTRIBUTES =
      List.of("host", "port", "user", "password", "private_key", "certificate", "host_key");

  static final Set<String> SECRET_HOP_ATTRIBUTES = Set.of("password", "private_key");

  /** Lines of a multi-line secret at least this long are redacted on their own too. */
  private static final int SECRET_LINE_MIN_LENGTH = 16;

  private static final int DEFAULT_SSH_PORT = 22;
  private static final String DEFAULT_SSH_USER = "root";
  private static final int DEFAULT_CONNECTION_TIMEOUT_SECONDS = 300;

  /** A resolved step and the evaluated connection attributes it came with (empty when none). */
  record Resolved(ProvisionerStep step, Map<String, Object> connection) {}

  private final ConfigModel model;
  private final ProvisionerDecl provisioner;
  private final EvalContext ctx;
  private final Set<String> sensitive;
  private final Diagnostics diagnostics = new Diagnostics();
  private final String where;

  private StepResolver(
      ConfigModel model, ProvisionerDecl provisioner, EvalContext ctx, Set<String> sensitive) {
    this.model = model;
    this.provisioner = provisioner;
    this.ctx = ctx;
    this.sensitive = sensitive;
    this.where = "the " + provisioner.type() + " provisioner";
  }

  /**
   * Resolves {@code p}; adds its diagnostics to {@code diagnostics} and returns empty when any is
   * an error.
   */
  static Optional<Resolved> resolve(
      ConfigModel model,
      ProvisionerDecl p,
      Optional<BlockDecl> resourceConnection,
      EvalContext ctx,
      Diagnostics diagnostics,
      Set<String> sensitive) {
    StepResolver r = new StepResolver(model, p, ctx, sensitive);
    Optional<Resolved> resolved = r.resolve(resourceConnection);
    diagnostics.addAll(r.diagnostics);
    return r.diagnostics.hasErrors() ? Optional.empty() : resolved;
  }

  private Optional<Resolved> resolve(Optional<BlockDecl> resourceConnection) {
    StepArguments args =
        new StepArguments(
            provisioner.attributes(), false, model, ctx, where, diagnostics, sensitive);
    boolean stepSensitive = args.sensitive;
    // as Terraform: the provisioner's connection arguments mask the resource's of the same name
    Map<String, AttributeDecl> connectionDecls = new LinkedHashMap<>();
    resourceConnection.ifPresent(b -> connectionDecls.putAll(b.attributes()));
    provisioner.connection().ifPresent(b -> connectionDecls.putAll(b.attributes()));
    Optional<BlockDecl> connectionBlock = provisioner.connection().or(() -> resourceConnection);
    Map<String, Object> connection = new LinkedHashMap<>();
    StepArguments conn =
        new StepArguments(connectionDecls, true, model, ctx, where, diagnostics, sensitive);
    conn.values.forEach((name, value) -> connection.put(name, value.toJava()));
    if (diagnostics.hasErrors()) {
      return Optional.empty();
    }
    int timeoutSeconds = args.seconds("timeout", 0);
    int retries = args.wholeNumber("retries", 0, 0, Integer.MAX_VALUE);
    ProvisionerStep step =
        switch (provisioner.type()) {
          case "local-exec" -> localExec(args, stepSensitive, timeoutSeconds, retries);
          case "remote-exec" ->
              remoteExec(args, connectionBlock, conn, stepSensitive, timeoutSeconds, retries);
          case "file" -> file(args, connectionBlock, conn, stepSensitive, timeoutSeconds, retries);
          default -> {
            diagnostics.error(
                "Unsupported provisioner type",
                "The provisioner type \"" + provisioner.type() + "\" is not supported.",
                provisioner.range());
            yield null;
          }
        };
    return step == null ? Optional.empty() : Optional.of(new Resolved(step, connection));
  }

  private ProvisionerStep localExec(
      StepArguments args, boolean stepSensitive, int timeoutSeconds, int retries) {
    return new ProvisionerStep(
        provisioner.type(),
        provisioner.when(),
        provisioner.onFailure(),
        args.string("command"),
        args.strings("interpreter"),
        args.stringMap("environment"),
        args.string("working_dir"),
        "true".equals(args.string("quiet")),
        stepSensitive,
        null,
        null,
        null,
        null,
        null,
        null,
        timeoutSeconds,
        retries);
  }

  /** {@code remote-exec}: exactly one of inline, script or scripts, run over SSH. */
  private ProvisionerStep remoteExec(
      StepArguments args,
      Optional<BlockDecl> connectionBlock,
      StepArguments conn,
      boolean stepSensitive,
      int timeoutSeconds,
      int retries) {
    SshConnection ssh = ssh(connectionBlock, conn);
    List<String> inline = null;
    List<String> scripts = null;
    if (exactlyOne(args, "inline", "script", "scripts")) {
      if (args.has("inline")) {
        inline = args.strings("inline");
      } else if (args.has("script")) {
        String path = args.string("script");
        scripts = new ArrayList<>();
        if (path != null) {
          scripts.add(readText(path, args.decl("script"), "script"));
        }
      } else {
        scripts = new ArrayList<>();
        for (String path : args.strings("scripts")) {
          scripts.add(readText(path, args.decl("scripts"), "script"));
        }
      }
    }
    if (diagnostics.hasErrors()) {
      return null;
    }
    return new ProvisionerStep(
        provisioner.type(),
        provisioner.when(),
        provisioner.onFailure(),
        null,
        null,
        null,
        null,
        false,
        stepSensitive,
        ssh,
        inline,
        scripts,
        null,
        null,
        null,
        timeoutSeconds,
        retries);
  }

  /** {@code file}: content, or a source file or directory, copied to a destination over SSH. */
  private ProvisionerStep file(
      StepArguments args,
      Optional<BlockDecl> connectionBlock,
      StepArguments conn,
      boolean stepSensitive,
      int timeoutSeconds,
      int retries) {
    SshConnection ssh = ssh(connectionBlock, conn);
    String content = null;
    Map<String, String> files = null;
    if (exactlyOne(args, "content", "source")) {
      if (args.has("content")) {
        content = args.string("content");
      } else {
        String source = args.string("source");
        if (source != null) {
          Path path = path(source, args.decl("source"));
          if (path != null && Files.isDirectory(path)) {
            files = directory(source, path, args.decl("source"));
          } else if (path != null) {
            content = readText(source, args.decl("source"), "source file");
          }
        }
      }
    }
    String destination = args.string("destination");
    if (destination == null || destination.isEmpty()) {
      diagnostics.error(
          "Missing required argument",
          "The argument \"destination\" is required in " + where + ".",
          args.has("destination") ? args.decl("destination").range() : provisioner.range());
    }
    if (diagnostics.hasErrors()) {
      return null;
    }
    return new ProvisionerStep(
        provisioner.type(),
        provisioner.when(),
        provisioner.onFailure(),
        null,
        null,
        null,
        null,
        false,
        stepSensitive,
        ssh,
        null,
        null,
        destination,
        content,
        files,
        timeoutSeconds,
        retries);
  }

  private boolean exactlyOne(StepArguments args, String... names) {
    long n = Stream.of(names).filter(args::has).count();
    if (n == 1) {
      return true;
    }
    diagnostics.error(
        n == 0 ? "Missing required argument" : "Conflicting arguments",
        where + " requires exactly one of: " + String.join(", ", names) + ".",
        provisioner.range());
    return false;
  }

  // ------------------------------------------------------------------ connection

  /** The SSH connection of a remote-exec or file step; null (with an error) when incomplete. */
  private SshConnection ssh(Optional<BlockDecl> block, StepArguments conn) {
    if (block.isEmpty()) {
      diagnostics.error(
          "Missing connection",
          where
              + " needs a connection block, in the provisioner or in the resource (connection {"
              + " type = \"ssh\", host = ... }).",
          provisioner.range());
      return null;
    }
    SourceRange blockRange = block.get().range();
    String type = conn.string("type");
    if (type != null && !type.equals("ssh")) {
      diagnostics.error(
          "Unsupported connection type",
          "The connection type \"" + type + "\" is not supported; the only type is \"ssh\".",
          conn.decl("type").range());
      return null; // the only error: the other arguments are another protocol's
    }
    String host = conn.string("host");
    if (host == null || host.isEmpty()) {
      diagnostics.error(
          "Missing connection host",
          "The connection of "
              + where
              + " has no \"host\" (or it is null or empty): set host = \"...\" in the connection"
              + " block.",
          conn.has("host") ? conn.decl("host").range() : blockRange);
    }
    int port = conn.wholeNumber("port", DEFAULT_SSH_PORT, 1, 65535);
    String user = orDefault(conn.string("user"), DEFAULT_SSH_USER);
    String password = conn.string("password");
    String privateKey = conn.string("private_key");
    String keyFile = conn.string("key_file");
    if (keyFile != null) {
      if (privateKey != null) {
        diagnostics.error(
            "Conflicting connection arguments",
            "A connection accepts only one of private_key (the key text) and key_file (its path).",
            conn.decl("key_file").range());
      } else {
        privateKey = readText(keyFile, conn.decl("key_file"), "key file");
        addSecret(privateKey);
      }
    }
    secretLines(privateKey);
    String certificate = conn.string("certificate");
    checkCertificate(certificate, privateKey, "certificate", "private_key or key_file", conn);
    String hostKey = conn.string("host_key");
    int timeout = conn.seconds("timeout", DEFAULT_CONNECTION_TIMEOUT_SECONDS);
    List<SshConnection.Bastion> bastions =
        bastions(conn, port, user, password, privateKey, certificate);
    SshConnection ssh =
        ConnectionOptions.apply(
            new SshConnection(
                host, port, user, password, privateKey, certificate, hostKey, timeout, bastions),
            conn,
            diagnostics);
    return diagnostics.hasErrors() ? null : ssh;
  }

  /**
   * The hops to the host: {@code bastions}, or the single {@code bastion_*} hop, whose port, user
   * and credentials default to the connection's; none (with warnings for stray bastion_*) without.
   */
  private List<SshConnection.Bastion> bastions(
      StepArguments conn,
      int port,
      String user,
      String password,
      String privateKey,
      String certificate) {
    List<SshConnection.Bastion> bastions = new ArrayList<>();
    String bastionHost = conn.string("bastion_host");
    if (conn.values.containsKey("bastions")) {
      if (bastionHost != null && !bastionHost.isEmpty()) {
        diagnostics.error(
            "Conflicting connection arguments",
            "A connection accepts only one of bastion_host (a single hop, with bastion_*) and"
                + " bastions (a list of hops, nearest first): move the bastion_* hop into bastions"
                + " as its first entry, or remove bastions.",
            conn.decl("bastions").range());
      } else {
        bastions.addAll(hops(conn, port, user, password, privateKey, certificate));
      }
    } else if (bastionHost != null && !bastionHost.isEmpty()) {
      String ownKey = conn.string("bastion_private_key");
      String bastionKey = orDefault(ownKey, privateKey);
      secretLines(bastionKey);
      // A certificate belongs to one key: the connection's certificate goes with its key only.
      String bastionCertificate =
          orDefault(conn.string("bastion_certificate"), ownKey == null ? certificate : null);
      checkCertificate(
          bastionCertificate, bastionKey, "bastion_certificate", "bastion_private_key", conn);
      bastions.add(
          new SshConnection.Bastion(
              bastionHost,
              conn.wholeNumber("bastion_port", port, 1, 65535),
              orDefault(conn.string("bastion_user"), user),
              orDefault(conn.string("bastion_password"), password),
              bastionKey,
              bastionCertificate,
              conn.string("bastion_host_key"),
              List.of()));
    } else {
      for (String name :
          List.of(
              "bastion_port",
              "bastion_user",
              "bastion_password",
              "bastion_private_key",
              "bastion_certificate",
              "bastion_host_key")) {
        if (conn.values.containsKey(name)) {
          diagnostics.warning(
              "Bastion argument without bastion_host",
              name + " has no effect without bastion_host in the same connection block.",
              conn.decl(name).range());
        }
      }
    }
    return bastions;
  }

  /**
   * An OpenSSH user certificate is the text {@code <type>-cert-v01@openssh.com AAAA...} and needs
   * the private key it was issued for; errors point at {@code argument}. Null: nothing to check.
   */
  private void checkCertificate(
      String certificate, String key, String argument, String keyArguments, StepArguments conn) {
    if (certificate == null) {
      return;
    }
    SourceRange range = conn.has(argument) ? conn.decl(argument).range() : null;
    if (range == null) {
      return; // inherited from the connection's certificate, which was checked there
    }
    reportCertificateProblems(certificate, key, argument, keyArguments, range);
  }

  private void reportCertificateProblems(
      String certificate, String key, String what, String keyArguments, SourceRange range) {
    String type = certificate.strip().split("\\s+", 2)[0];
    if (!type.endsWith("-cert-v01@openssh.com")) {
      diagnostics.error(
          "Invalid argument value",
          what
              + " must be the text of an OpenSSH user certificate, such as"
              + " \"ssh-ed25519-cert-v01@openssh.com AAAA...\" (read the *-cert.pub file that"
              + " ssh-keygen -s writes with file(\"...\")); found text starting with \""
              + (type.length() > 40 ? type.substring(0, 40) + "..." : type)
              + "\".",
          range);
    } else if (key == null) {
      diagnostics.error(
          "Missing private key",
          what
              + " needs the private key it was issued for: set "
              + keyArguments
              + " in the same connection block.",
          range);
    }
  }

  /**
   * The {@code bastions} list: objects {@code {host, port, user, password, private_key,
   * certificate, host_key}}, nearest first. As for {@code bastion_*}, port, user and credentials
   * default to the connection's (the certificate only when the key does); {@code host} is required.
   * Errors point at the {@code bastions} argument.
   */
  private List<SshConnection.Bastion> hops(
      StepArguments conn,
      int port,
      String user,
      String password,
      String privateKey,
      String certificate) {
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
      if (!(list.elements().get(i) instanceof Value.ObjectValue hop)) {
        diagnostics.error(
            "Invalid argument value",
            what
                + " must be an object with the attributes "
                + String.join(", ", HOP_ATTRIBUTES)
                + "; found "
                + list.elements().get(i).typeName()
                + ".",
            range);
        continue;
      }
      checkHopAttributes(hop, what, range);
      String host = hopString(hop, "host", what, range);
      if (host == null || host.isEmpty()) {
        diagnostics.error(
            "Missing bastion host",
            what + " has no \"host\" (or it is null or empty): every hop needs host = \"...\".",
            range);
      }
      int hopPort = hopPort(hop, what, range, port);
      String ownKey = hopString(hop, "private_key", what, range);
      String hopKey = orDefault(ownKey, privateKey);
      secretLines(hopKey);
      String ownCertificate = hopString(hop, "certificate", what, range);
      if (ownCertificate != null) {
        reportCertificateProblems(
            ownCertificate, hopKey, what + ".certificate", what + ".private_key", range);
      }
      hops.add(
          new SshConnection.Bastion(
              host,
              hopPort,
              orDefault(hopString(hop, "user", what, range), user),
              orDefault(hopString(hop, "password", what, range), password),
              hopKey,
              orDefault(ownCertificate, ownKey == null ? certificate : null),
              hopString(hop, "host_key", what, range),
              List.of()));
    }
    return hops;
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

  private static String orDefault(String value, String dflt) {
    return value == null ? dflt : value;
  }

  private void addSecret(String secret) {
    if (secret != null && !secret.isEmpty()) {
      sensitive.add(secret);
    }
  }

  /**
   * Output is redacted line by line, so each long line of a multi-line secret (the body of a PEM
   * key) is a sensitive value of its own.
   */
  private void secretLines(String secret) {
    if (secret == null || secret.indexOf('\n') < 0) {
      return;
    }
    for (String line : secret.split("\\R")) {
      String l = line.strip();
      if (l.length() >= SECRET_LINE_MIN_LENGTH && !l.startsWith("-----")) {
        sensitive.add(l);
      }
    }
  }

  // ------------------------------------------------------------------ files

  private Path path(String path, AttributeDecl decl) {
    try {
      return ctx.resolvePath(path);
    } catch (IllegalArgumentException e) {
      diagnostics.error(
          "Invalid path", "\"" + path + "\" is not a valid path: " + e.getMessage(), decl.range());
      return null;
    }
  }

  /** The UTF-8 text of {@code path} (relative to the configuration directory). */
  private String readText(String path, AttributeDecl decl, String what) {
    Path file = path(path, decl);
    if (file == null) {
      return null;
    }
    if (!Files.isRegularFile(file)) {
      diagnostics.error(
          "No such file",
          "The "
              + what
              + " \""
              + path
              + "\" does not exist (relative to "
              + (ctx.fileAccessConfined() ? "the configuration directory" : ctx.baseDirectory())
              + "); check the path.",
          decl.range());
      return null;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
          .toString();
    } catch (CharacterCodingException e) {
      diagnostics.error(
          "Not a text file",
          "The "
              + what
              + " \""
              + path
              + "\" is not UTF-8 text"
              + (what.equals("source file")
                  ? "; to upload binary files, put them in a directory and use it as the source."
                  : "."),
          decl.range());
    } catch (IOException e) {
      diagnostics.error(
          "Cannot read file",
          "The " + what + " \"" + path + "\" cannot be read: " + e.getMessage(),
          decl.range());
    }
    return null;
  }

  /**
   * Every regular file under {@code dir} by relative path ({@code /}-separated) → base64 content.
   * As Terraform's file provisioner: a source ending in {@code /} uploads the directory's contents
   * into the destination, otherwise the directory itself (its name prefixes every path).
   */
  private Map<String, String> directory(String source, Path dir, AttributeDecl decl) {
    String prefix = "";
    if (!source.endsWith("/")) {
      Path name = Path.of(source).normalize().getFileName();
      if (name != null && !name.toString().isEmpty() && !name.toString().equals("..")) {
        prefix = name + "/";
      }
    }
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
        StringBuilder relative = new StringBuilder(prefix);
        Path rel = dir.relativize(f);
        for (int i = 0; i < rel.getNameCount(); i++) {
          relative.append(i == 0 ? "" : "/").append(rel.getName(i));
        }
        files.put(relative.toString(), Base64.getEncoder().encodeToString(Files.readAllBytes(f)));
      }
    } catch (IOException | UncheckedIOException e) {
      diagnostics.error(
          "Cannot read directory",
          "The source directory \"" + source + "\" cannot be read: " + e.getMessage(),
          decl.range());
      return null;
    }
    if (files.isEmpty()) {
      diagnostics.error(
          "Empty source directory",
          "The source directory \"" + source + "\" holds no files, so there is nothing to upload.",
          decl.range());
    }
    return files;
  }
}
