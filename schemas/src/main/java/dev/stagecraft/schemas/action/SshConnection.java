package dev.stagecraft.schemas.action;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A resolved {@code connection} block ({@code type = "ssh"}): where and how the executor connects
 * for {@code remote-exec} and {@code file} steps.
 *
 * @param password sensitive: listed in the action's {@code sensitiveValues}
 * @param privateKey PEM/OpenSSH private key text (the seed's {@code key_file} is read into it by
 *     the planner); sensitive
 * @param certificate an OpenSSH user certificate for {@code privateKey} ({@code
 *     ssh-ed25519-cert-v01@openssh.com AAAA...}, what {@code ssh-keygen -s} writes to {@code
 *     *-cert.pub}), offered instead of the bare public key; not secret (the key is)
 * @param hostKey the expected host public key ({@code ssh-ed25519 AAAA...}); null means the
 *     executor verifies with known hosts or trust on first use
 * @param timeoutSeconds how long to keep retrying the connection (Terraform's default 5 minutes)
 * @param bastions the hops to go through, nearest first
 * @param knownHostKeys keys the planner knows for this {@code host:port} ({@code ssh-ed25519
 *     AAAA... [comment]}): the tenant's known hosts and the key trusted on first use in the
 *     workspace. The comment, when present, says where the key comes from and is shown in a
 *     mismatch error. Without a {@code hostKey} the host must offer one of them; when empty the
 *     executor trusts the offered key on first use and reports it in {@code action.finished}.
 * @param proxy the HTTP (CONNECT) or SOCKS5 proxy the first hop is reached through (the first
 *     bastion when there is one, else the host), as Terraform's {@code proxy_*}; null: direct
 * @param scriptPath where {@code remote-exec} uploads each script ({@code %RAND%} replaced by a
 *     random number), as Terraform's {@code script_path}; null: the executor's own unguessable name
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SshConnection(
    String host,
    int port,
    String user,
    String password,
    String privateKey,
    String certificate,
    String hostKey,
    int timeoutSeconds,
    List<Bastion> bastions,
    List<String> knownHostKeys,
    Proxy proxy,
    String scriptPath) {

  public SshConnection {
    bastions = bastions == null ? List.of() : List.copyOf(bastions);
    knownHostKeys = knownHostKeys == null ? List.of() : List.copyOf(knownHostKeys);
  }

  /** Direct (no proxy), with the executor's own script path. */
  public SshConnection(
      String host,
      int port,
      String user,
      String password,
      String privateKey,
      String certificate,
      String hostKey,
      int timeoutSeconds,
      List<Bastion> bastions,
      List<String> knownHostKeys) {
    this(
        host,
        port,
        user,
        password,
        privateKey,
        certificate,
        hostKey,
        timeoutSeconds,
        bastions,
        knownHostKeys,
        null,
        null);
  }

  /** Without known host keys. */
  public SshConnection(
      String host,
      int port,
      String user,
      String password,
      String privateKey,
      String certificate,
      String hostKey,
      int timeoutSeconds,
      List<Bastion> bastions) {
    this(
        host,
        port,
        user,
        password,
        privateKey,
        certificate,
        hostKey,
        timeoutSeconds,
        bastions,
        List.of());
  }

  /** The same connection with {@code keys} as its known host keys (the bastions unchanged). */
  public SshConnection withKnownHostKeys(List<String> keys) {
    return new SshConnection(
        host,
        port,
        user,
        password,
        privateKey,
        certificate,
        hostKey,
        timeoutSeconds,
        bastions,
        keys,
        proxy,
        scriptPath);
  }

  /** The same connection with other bastions. */
  public SshConnection withBastions(List<Bastion> hops) {
    return new SshConnection(
        host,
        port,
        user,
        password,
        privateKey,
        certificate,
        hostKey,
        timeoutSeconds,
        hops,
        knownHostKeys,
        proxy,
        scriptPath);
  }

  /** The same connection through {@code via} (null: direct). */
  public SshConnection withProxy(Proxy via) {
    return new SshConnection(
        host,
        port,
        user,
        password,
        privateKey,
        certificate,
        hostKey,
        timeoutSeconds,
        bastions,
        knownHostKeys,
        via,
        scriptPath);
  }

  /** The same connection with {@code path} as its script path (null: the executor's default). */
  public SshConnection withScriptPath(String path) {
    return new SshConnection(
        host,
        port,
        user,
        password,
        privateKey,
        certificate,
        hostKey,
        timeoutSeconds,
        bastions,
        knownHostKeys,
        proxy,
        path);
  }

  /**
   * A proxy in front of the first hop, as Terraform's {@code proxy_scheme}, {@code proxy_host},
   * {@code proxy_port}, {@code proxy_user_name} and {@code proxy_user_password}.
   *
   * @param scheme {@code http} or {@code https} (both HTTP CONNECT over plain TCP, as in Terraform)
   *     or {@code socks5}
   * @param user null: no proxy authentication
   * @param password sensitive: listed in the action's {@code sensitiveValues}
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Proxy(String scheme, String host, int port, String user, String password) {
    public static final String HTTP = "http";
    public static final String HTTPS = "https";
    public static final String SOCKS5 = "socks5";

    /** {@code socks5://host:port} or {@code http://host:port}: for messages, with no credential. */
    public String where() {
      String h = host != null && host.indexOf(':') >= 0 ? "[" + host + "]" : host;
      return scheme + "://" + h + ":" + port;
    }

    /** Never prints the password. */
    @Override
    public String toString() {
      return "Proxy[" + where() + (user == null ? "" : ", user=" + user) + "]";
    }
  }

  /**
   * One jump host.
   *
   * @param certificate as {@link SshConnection#certificate}, for this hop's {@code privateKey}
   * @param knownHostKeys as {@link SshConnection#knownHostKeys}, for this hop's {@code host:port}
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Bastion(
      String host,
      int port,
      String user,
      String password,
      String privateKey,
      String certificate,
      String hostKey,
      List<String> knownHostKeys) {

    public Bastion {
      knownHostKeys = knownHostKeys == null ? List.of() : List.copyOf(knownHostKeys);
    }

    /** Without a certificate. */
    public Bastion(
        String host,
        int port,
        String user,
        String password,
        String privateKey,
        String hostKey,
        List<String> knownHostKeys) {
      this(host, port, user, password, privateKey, null, hostKey, knownHostKeys);
    }

    /** Without a certificate and known host keys. */
    public Bastion(
        String host, int port, String user, String password, String privateKey, String hostKey) {
      this(host, port, user, password, privateKey, null, hostKey, List.of());
    }

    /** The same hop with {@code keys} as its known host keys. */
    public Bastion withKnownHostKeys(List<String> keys) {
      return new Bastion(host, port, user, password, privateKey, certificate, hostKey, keys);
    }
  }
}
