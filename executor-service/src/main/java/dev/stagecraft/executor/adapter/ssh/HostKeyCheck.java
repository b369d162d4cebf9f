package dev.stagecraft.executor.adapter.ssh;

import dev.stagecraft.schemas.action.LearnedHostKey;
import dev.stagecraft.schemas.action.SshConnection;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.stream.Collectors;
import net.schmizz.sshj.common.Buffer;
import net.schmizz.sshj.common.KeyType;
import net.schmizz.sshj.transport.verification.HostKeyVerifier;

/**
 * Decides whether to trust the key one host ({@code host:port}) presents, in this order:
 *
 * <ol>
 *   <li>a pinned {@code host_key} must match exactly (type and key);
 *   <li>else, when keys are known for this host:port (the tenant's known hosts, or the key trusted
 *       on first use earlier in the workspace, attached by the planner as {@code knownHostKeys}),
 *       the key must be one of them;
 *   <li>else the key is accepted on first use and {@link #learned() reported}, so that the state
 *       service records it and later runs require it.
 * </ol>
 *
 * <p>Keys are written {@code <type> <base64> [comment]} as in an OpenSSH {@code .pub} file or
 * {@code known_hosts}. The comment of a known key says where it comes from ({@code tenant known
 * hosts}, {@code first use in workspace W}) and is quoted in the {@link #mismatchMessage}.
 *
 * <p>One instance per connection attempt and host: sshj calls {@link #verify} on its transport
 * thread, the connecting thread reads the outcome afterwards (hence the volatile fields).
 */
final class HostKeyCheck implements HostKeyVerifier {
  /** The comment the planner gives a key trusted on first use; the workspace follows it. */
  static final String FIRST_USE_PREFIX = "first use in workspace ";

  /** A key the host may present, and where that expectation comes from. */
  record Expected(String type, String blob, String source) {
    String fingerprint() {
      return type + " " + HostKeyCheck.fingerprint(blob);
    }
  }

  private final String host;
  private final int port;
  private final boolean pinned;
  private final List<Expected> expected;
  private volatile String seenType;
  private volatile String seenBlob;
  private volatile boolean rejected;

  /**
   * @param host the host as written in the connection block (used in messages and learned keys)
   * @param pinned the pinned {@code host_key}, or null/blank
   * @param known the known keys of this host:port (ignored when a key is pinned)
   * @throws IllegalArgumentException when the pinned key or a known key is not {@code <type>
   *     <base64>}
   */
  HostKeyCheck(String host, int port, String pinned, List<String> known) {
    this.host = host;
    this.port = port;
    List<Expected> keys = new ArrayList<>();
    if (pinned != null && !pinned.isBlank()) {
      this.pinned = true;
      keys.add(parse(pinned, "pinned host_key", "host_key"));
    } else {
      this.pinned = false;
      for (String key : known == null ? List.<String>of() : known) {
        keys.add(parse(key, "known host keys", "known host key"));
      }
    }
    this.expected = List.copyOf(keys);
  }

  /** Only a pin (or none): kept for callers that do not know any keys. */
  HostKeyCheck(String pinned) {
    this(null, 0, pinned, List.of());
  }

  /** The check for the target of {@code connection}, reached on {@code port}. */
  static HostKeyCheck forTarget(SshConnection connection, int port) {
    return new HostKeyCheck(
        connection.host(), port, connection.hostKey(), connection.knownHostKeys());
  }

  /** The check for a bastion hop, reached on {@code port}. */
  static HostKeyCheck forBastion(SshConnection.Bastion hop, int port) {
    return new HostKeyCheck(hop.host(), port, hop.hostKey(), hop.knownHostKeys());
  }

  private static Expected parse(String line, String defaultSource, String what) {
    String[] parts = line.trim().split("\\s+", 3);
    if (parts.length < 2 || !isBase64(parts[1])) {
      throw new IllegalArgumentException(
          what + " must be \"<type> <base64 key>\" (e.g. ssh-ed25519 AAAA...)");
    }
    String source = parts.length == 3 && !parts[2].isBlank() ? parts[2].trim() : defaultSource;
    return new Expected(parts[0], parts[1], source);
  }

  private static boolean isBase64(String text) {
    try {
      Base64.getDecoder().decode(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public boolean verify(String hostname, int port, PublicKey key) {
    seenType = KeyType.fromKey(key).toString();
    seenBlob =
        Base64.getEncoder()
            .encodeToString(new Buffer.PlainBuffer().putPublicKey(key).getCompactData());
    if (expected.isEmpty()) {
      return true;
    }
    boolean matches =
        expected.stream().anyMatch(e -> e.type().equals(seenType) && e.blob().equals(seenBlob));
    rejected = !matches;
    return matches;
  }

  /**
   * Offer the expected key types first, so that a host with several keys presents the one we know
   * instead of failing the check with another of its keys.
   */
  @Override
  public List<String> findExistingAlgorithms(String hostname, int port) {
    return List.copyOf(
        expected.stream().map(Expected::type).collect(Collectors.toCollection(LinkedHashSet::new)));
  }

  boolean pinned() {
    return pinned;
  }

  /** True when the host's key was checked against expected keys (pinned or known). */
  boolean enforced() {
    return !expected.isEmpty();
  }

  boolean rejected() {
    return rejected;
  }

  /** {@code ssh-ed25519 SHA256:...} of the key the host presented, or null. */
  String seen() {
    return seenType == null ? null : seenType + " " + fingerprint(seenBlob);
  }

  /** The expected fingerprints with their sources, e.g. {@code ssh-ed25519 SHA256:x (pinned)}. */
  String expected() {
    return expected.stream()
        .map(e -> e.fingerprint() + " (" + e.source() + ")")
        .collect(Collectors.joining(" or "));
  }

  /**
   * The key accepted on first use, or null when a key was pinned or known (or nothing was seen):
   * what the state service should record for this host:port.
   */
  LearnedHostKey learned() {
    if (enforced() || seenType == null) {
      return null;
    }
    return new LearnedHostKey(host, port, seenType + " " + seenBlob, fingerprint(seenBlob));
  }

  /**
   * What to tell the user when {@link #rejected()}: which host, what was expected and from where,
   * what was offered, that nothing ran, and how to fix it.
   */
  String mismatchMessage() {
    String where = host + ":" + port;
    StringBuilder fix = new StringBuilder();
    fix.append("If the host was re-keyed on purpose, check the new key out of band and ");
    if (pinned) {
      fix.append("pin it: host_key = \"").append(seenType).append(' ').append(seenBlob);
      fix.append("\".");
    } else {
      fix.append("either pin it (host_key = \"")
          .append(seenType)
          .append(' ')
          .append(seenBlob)
          .append("\") or remove the recorded key with `stagecraft known-hosts remove ");
      String workspace = firstUseWorkspace();
      if (workspace != null) {
        fix.append("-workspace=").append(workspace).append(' ');
      }
      fix.append(where).append("` so the next run trusts the new key on first use.");
    }
    return "host key changed for "
        + where
        + ": the host offered "
        + seen()
        + " but "
        + expected()
        + " was expected; nothing was run. "
        + fix
        + " Otherwise this is not the host you meant (or someone is in between): do not trust it.";
  }

  /** The workspace a first-use key was recorded in, from its comment, or null. */
  private String firstUseWorkspace() {
    for (Expected e : expected) {
      if (e.source().startsWith(FIRST_USE_PREFIX)) {
        String rest = e.source().substring(FIRST_USE_PREFIX.length()).trim();
        int space = rest.indexOf(' ');
        return space < 0 ? rest : rest.substring(0, space);
      }
    }
    return null;
  }

  /** OpenSSH's {@code SHA256:} fingerprint of a base64 key blob. */
  static String fingerprint(String base64Blob) {
    try {
      byte[] blob = Base64.getDecoder().decode(base64Blob);
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(blob);
      return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
    } catch (IllegalArgumentException e) {
      return "(not base64)";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
