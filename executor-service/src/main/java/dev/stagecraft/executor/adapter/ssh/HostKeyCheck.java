package dev.stagecraft.executor.adapter.ssh;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.Base64;
import java.util.List;
import net.schmizz.sshj.common.Buffer;
import net.schmizz.sshj.common.KeyType;
import net.schmizz.sshj.transport.verification.HostKeyVerifier;

/**
 * Verifies the key a host presents: against the pinned {@code host_key} ({@code <type> <base64>
 * [comment]}, as in an OpenSSH {@code .pub} file or {@code known_hosts}), or — without a pin —
 * accepts it and remembers it, so the caller can report it (trust on first use).
 *
 * <p>One instance per connection attempt: it records what it saw for the error message.
 */
final class HostKeyCheck implements HostKeyVerifier {
  private final String pinnedType;
  private final String pinnedBlob;
  private volatile String seenType;
  private volatile String seenBlob;
  private volatile boolean rejected;

  /**
   * @param pinned the expected host key, or null/blank to accept any key
   */
  HostKeyCheck(String pinned) {
    if (pinned == null || pinned.isBlank()) {
      pinnedType = null;
      pinnedBlob = null;
    } else {
      String[] parts = pinned.trim().split("\\s+");
      if (parts.length < 2) {
        throw new IllegalArgumentException(
            "host_key must be \"<type> <base64 key>\" (e.g. ssh-ed25519 AAAA...)");
      }
      pinnedType = parts[0];
      pinnedBlob = parts[1];
    }
  }

  @Override
  public boolean verify(String hostname, int port, PublicKey key) {
    seenType = KeyType.fromKey(key).toString();
    seenBlob =
        Base64.getEncoder()
            .encodeToString(new Buffer.PlainBuffer().putPublicKey(key).getCompactData());
    if (pinnedType == null) {
      return true;
    }
    boolean matches = pinnedType.equals(seenType) && pinnedBlob.equals(seenBlob);
    rejected = !matches;
    return matches;
  }

  /** Offer the pinned key type first so that a host with several keys presents that one. */
  @Override
  public List<String> findExistingAlgorithms(String hostname, int port) {
    return pinnedType == null ? List.of() : List.of(pinnedType);
  }

  boolean pinned() {
    return pinnedType != null;
  }

  boolean rejected() {
    return rejected;
  }

  /** {@code ssh-ed25519 SHA256:...} of the key the host presented, or null. */
  String seen() {
    return seenType == null ? null : seenType + " " + fingerprint(seenBlob);
  }

  String expected() {
    return pinnedType + " " + fingerprint(pinnedBlob);
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
