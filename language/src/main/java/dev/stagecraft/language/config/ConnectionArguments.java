package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The arguments of a {@code connection} block (every one Terraform's schema knows, plus
 * Stagecraft's {@code bastions}) and the checks that need no evaluation: a literal {@code type}
 * other than {@code ssh}, {@code target_platform} other than {@code unix} and an unknown {@code
 * proxy_scheme} are errors; the WinRM-only arguments and the SSH-agent ones are accepted and
 * ignored with a warning. An argument set to {@code null} is unset: never warned about. Checks of
 * evaluated values happen when the step is resolved (planner-core {@code StepResolver}).
 */
public final class ConnectionArguments {
  /** Used by Stagecraft's SSH connection (planner-core maps them to {@code SshConnection}). */
  static final List<String> SSH =
      List.of(
          "type",
          "host",
          "port",
          "user",
          "password",
          "private_key",
          "certificate",
          "host_key",
          "timeout",
          "script_path",
          "key_file",
          "target_platform",
          "proxy_scheme",
          "proxy_host",
          "proxy_port",
          "proxy_user_name",
          "proxy_user_password",
          "bastion_host",
          "bastion_port",
          "bastion_user",
          "bastion_password",
          "bastion_private_key",
          "bastion_certificate",
          "bastion_host_key",
          // Stagecraft's: more hops than bastion_* can describe (list of objects, nearest first)
          "bastions");

  /** Terraform's SSH-agent arguments: the executor has no agent, so they are ignored (warned). */
  static final List<String> AGENT = List.of("agent", "agent_identity");

  /** Terraform's WinRM-only arguments: meaningless over SSH, so ignored (warned). */
  static final List<String> WINRM_ONLY = List.of("https", "insecure", "use_ntlm", "cacert");

  /** Every argument a connection block accepts. */
  public static final Set<String> NAMES = names();

  /**
   * The proxy schemes Terraform knows: {@code http}, {@code https} (both CONNECT), {@code socks5}.
   */
  public static final Set<String> PROXY_SCHEMES = Set.of("http", "https", "socks5");

  /** The only target platform supported over SSH. */
  public static final String UNIX = "unix";

  private ConnectionArguments() {}

  private static Set<String> names() {
    Set<String> all = new LinkedHashSet<>(SSH);
    all.addAll(AGENT);
    all.addAll(WINRM_ONLY);
    return Set.copyOf(all);
  }

  /**
   * The checks of one block's literal values; arguments it does not know were reported before. When
   * {@code type} is a literal other than {@code ssh}, that error is the only one.
   */
  static void check(Body body, Diagnostics d) {
    Optional<Body.Attribute> type = body.attribute("type");
    if (type.isPresent()) {
      Optional<String> t = Literals.string(type.get().expr());
      if (t.isPresent() && !t.get().equals("ssh")) {
        Expression e = type.get().expr();
        d.error(
            "Unsupported connection type",
            "The connection type \""
                + t.get()
                + "\" at "
                + e.range().file()
                + " line "
                + e.range().line()
                + " is not supported; only \"ssh\" is. Remove the type argument or set"
                + " type = \"ssh\".",
            e.range());
        return;
      }
    }
    for (Body.Attribute a : body.attributes()) {
      if (isNull(a.expr())) {
        continue; // null is unset, as in Terraform
      }
      switch (a.name()) {
        case "https", "insecure", "use_ntlm", "cacert" ->
            d.warning(
                "Ignored connection argument",
                "\""
                    + a.name()
                    + "\" is an argument of WinRM connections; Stagecraft connects over SSH only,"
                    + " so it is ignored. Remove it from the connection block.",
                a.nameRange());
        case "agent_identity" ->
            d.warning(
                "Ignored connection argument",
                "\"agent_identity\" picks a key of an SSH agent, and the Stagecraft executor has"
                    + " no SSH agent, so it is ignored: authenticate with private_key (or"
                    + " key_file), certificate or password instead.",
                a.nameRange());
        case "agent" -> {
          if (Literals.bool(a.expr()).orElse(false)) {
            d.warning(
                "Ignored connection argument",
                "agent = true asks for an SSH agent, and the Stagecraft executor has none, so"
                    + " it is ignored: authenticate with private_key (or key_file), certificate"
                    + " or password instead, and remove agent or set agent = false.",
                a.nameRange());
          }
        }
        case "target_platform" ->
            Literals.string(a.expr())
                .filter(p -> !p.equals(UNIX))
                .ifPresent(
                    p ->
                        d.error(
                            "Unsupported target platform",
                            "target_platform = \""
                                + p
                                + "\" is not supported: Stagecraft runs provisioners over SSH on"
                                + " unix targets only. Remove target_platform or set"
                                + " target_platform = \"unix\".",
                            a.expr().range()));
        case "proxy_scheme" ->
            Literals.string(a.expr())
                .filter(s -> !PROXY_SCHEMES.contains(s))
                .ifPresent(
                    s ->
                        d.error(
                            "Unsupported proxy scheme",
                            "proxy_scheme = \""
                                + s
                                + "\" is not supported; use \"http\" or \"https\" (an HTTP"
                                + " CONNECT proxy, as in Terraform) or \"socks5\".",
                            a.expr().range()));
        default -> {}
      }
    }
  }

  /** Whether {@code e} is the literal {@code null}. */
  static boolean isNull(Expression e) {
    return e instanceof Expression.Literal l && l.value() == null;
  }
}
