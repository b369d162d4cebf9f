package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.ConnectionArguments;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.List;

/**
 * The connection arguments that say how (not where) the executor connects: {@code target_platform}
 * (only {@code unix}), {@code script_path} and the {@code proxy_*} group, from the evaluated
 * arguments of a connection. Errors point at the argument. Stateless.
 */
final class ConnectionOptions {
  static final List<String> PROXY_ARGUMENTS =
      List.of("proxy_scheme", "proxy_host", "proxy_port", "proxy_user_name", "proxy_user_password");

  private ConnectionOptions() {}

  /** {@code connection} with its proxy and script path; reports what is wrong. */
  static SshConnection apply(
      SshConnection connection, StepArguments conn, Diagnostics diagnostics) {
    targetPlatform(conn, diagnostics);
    return connection
        .withProxy(proxy(conn, diagnostics))
        .withScriptPath(scriptPath(conn, diagnostics));
  }

  private static void targetPlatform(StepArguments conn, Diagnostics diagnostics) {
    String platform = conn.string("target_platform");
    if (platform != null && !platform.equals(ConnectionArguments.UNIX)) {
      diagnostics.error(
          "Unsupported target platform",
          "target_platform = \""
              + platform
              + "\" is not supported: Stagecraft runs provisioners over SSH on unix targets"
              + " only. Remove target_platform or set target_platform = \"unix\".",
          conn.decl("target_platform").range());
    }
  }

  /**
   * Where remote-exec uploads its scripts: null (the executor's default) when unset or empty, else
   * an absolute path, {@code %RAND%} left for the executor to replace.
   */
  private static String scriptPath(StepArguments conn, Diagnostics diagnostics) {
    String path = conn.string("script_path");
    if (path == null || path.isBlank()) {
      return null;
    }
    if (!path.startsWith("/") || path.endsWith("/") || path.indexOf('\n') >= 0) {
      diagnostics.error(
          "Invalid argument value",
          "script_path must be the absolute path of a file on the target, such as"
              + " \"/tmp/terraform_%RAND%.sh\" (%RAND% becomes a random number); found \""
              + path
              + "\".",
          conn.decl("script_path").range());
      return null;
    }
    return path;
  }

  /**
   * The proxy in front of the first hop, as Terraform: {@code proxy_host} turns it on, {@code
   * proxy_scheme} defaults to {@code http}, {@code proxy_port} is required (Terraform has no
   * default either). Other {@code proxy_*} without {@code proxy_host} are a warning.
   */
  private static SshConnection.Proxy proxy(StepArguments conn, Diagnostics diagnostics) {
    String host = conn.string("proxy_host");
    if (host == null || host.isEmpty()) {
      for (String name : PROXY_ARGUMENTS) {
        if (!name.equals("proxy_host") && conn.values.containsKey(name)) {
          diagnostics.warning(
              "Proxy argument without proxy_host",
              name + " has no effect without proxy_host in the same connection block.",
              conn.decl(name).range());
        }
      }
      return null;
    }
    String scheme = conn.string("proxy_scheme");
    if (scheme == null || scheme.isEmpty()) {
      scheme = SshConnection.Proxy.HTTP;
    } else if (!ConnectionArguments.PROXY_SCHEMES.contains(scheme)) {
      diagnostics.error(
          "Unsupported proxy scheme",
          "proxy_scheme = \""
              + scheme
              + "\" is not supported; use \"http\" or \"https\" (an HTTP CONNECT proxy, as in"
              + " Terraform) or \"socks5\".",
          conn.decl("proxy_scheme").range());
    }
    int port = conn.wholeNumber("proxy_port", 0, 1, 65535);
    if (!conn.values.containsKey("proxy_port")) {
      diagnostics.error(
          "Missing proxy port",
          "proxy_host needs proxy_port, the port the proxy listens on (often 3128 or 8080 for an"
              + " HTTP proxy, 1080 for SOCKS5): set proxy_port = ... in the connection block.",
          conn.decl("proxy_host").range());
    }
    String user = conn.string("proxy_user_name");
    if (user != null && user.isEmpty()) {
      user = null;
    }
    String password = conn.string("proxy_user_password");
    if (password != null && password.isEmpty()) {
      password = null;
    }
    if (password != null && user == null) {
      diagnostics.error(
          "Missing proxy user name",
          "proxy_user_password needs proxy_user_name: the proxy authenticates a user name and its"
              + " password together.",
          conn.decl("proxy_user_password").range());
    }
    return new SshConnection.Proxy(scheme, host, port, user, password);
  }
}
