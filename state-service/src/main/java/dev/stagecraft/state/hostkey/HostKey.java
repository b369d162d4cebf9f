package dev.stagecraft.state.hostkey;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A host key trusted for {@code host:port} in a tenant: either a tenant-wide known host ({@code
 * workspace} null, source {@link #KNOWN_HOSTS}) or the key accepted on first use in a workspace
 * (source {@link #FIRST_USE}).
 *
 * @param publicKey {@code <type> <base64>} without comment
 * @param fingerprint OpenSSH's {@code SHA256:...} fingerprint, computed here from the key
 * @param runId the run that learned a first-use key; null for known hosts
 * @param actor who added a known host; null for first-use keys
 */
public record HostKey(
    String workspace,
    String host,
    int port,
    String publicKey,
    String fingerprint,
    String source,
    String runId,
    String actor,
    Instant createdAt) {
  public static final String FIRST_USE = "first-use";

  /**
   * A host, port or key that is not valid, with what is wrong and what is expected: the refusal's
   * one channel (the HTTP adapter answers it with a 400, a learned key is skipped); any other
   * exception is a bug.
   */
  public static final class Invalid extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  public static final String KNOWN_HOSTS = "known-hosts";
  private static final Pattern TYPE = Pattern.compile("[A-Za-z0-9@.-]{1,64}");
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._:%\\[\\]-]{1,253}");

  /**
   * The comment the planner gives this key in a dispatched connection's {@code knownHostKeys}: it
   * says where the expectation comes from and is quoted in the executor's mismatch error.
   */
  public String origin() {
    return FIRST_USE.equals(source)
        ? "first use in workspace " + workspace + (runId == null ? "" : " (run " + runId + ")")
        : "tenant known hosts";
  }

  /** {@code <type> <base64> <origin>}, the form the executor reads. */
  public String knownHostKeyLine() {
    return publicKey + " " + origin();
  }

  /**
   * Checks and normalizes {@code <type> <base64> [comment]} to {@code <type> <base64>}.
   *
   * @throws Invalid saying what is wrong and what is expected
   */
  public static String normalizePublicKey(String text) {
    String[] parts = text == null ? new String[0] : text.trim().split("\\s+", 3);
    if (parts.length < 2 || !TYPE.matcher(parts[0]).matches()) {
      throw new Invalid(
          "publicKey must be \"<type> <base64>\" as in an OpenSSH .pub file (e.g. ssh-ed25519"
              + " AAAA...); got "
              + (text == null ? "nothing" : "\"" + abbreviate(text) + "\""));
    }
    byte[] blob;
    try {
      blob = Base64.getDecoder().decode(parts[1]);
    } catch (IllegalArgumentException e) {
      throw new Invalid(
          "publicKey's key part is not base64: copy the whole line of the host's .pub file"
              + " (e.g. /etc/ssh/ssh_host_ed25519_key.pub)");
    }
    if (blob.length < 8) {
      throw new Invalid("publicKey's key part is too short to be an SSH key");
    }
    return parts[0] + " " + parts[1];
  }

  /** OpenSSH's {@code SHA256:} fingerprint of a normalized public key. */
  public static String fingerprint(String normalizedPublicKey) {
    byte[] blob = Base64.getDecoder().decode(normalizedPublicKey.split(" ", 2)[1]);
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(blob);
      return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Checks and normalizes a host name or address (lower case: host names are case-insensitive).
   *
   * @throws Invalid when blank or with characters no host name has
   */
  public static String normalizeHost(String host) {
    if (host == null || !HOST.matcher(host.trim()).matches()) {
      throw new Invalid(
          "host must be a host name or IP address (letters, digits, '.', '-', ':'); got "
              + (host == null ? "nothing" : "\"" + abbreviate(host) + "\""));
    }
    return host.trim().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws Invalid unless 1..65535
   */
  public static int checkPort(int port) {
    if (port < 1 || port > 65535) {
      throw new Invalid("port must be 1-65535; got " + port);
    }
    return port;
  }

  private static String abbreviate(String text) {
    return text.length() > 40 ? text.substring(0, 40) + "..." : text;
  }
}
