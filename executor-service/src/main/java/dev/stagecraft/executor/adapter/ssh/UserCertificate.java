package dev.stagecraft.executor.adapter.ssh;

import com.hierynomus.sshj.userauth.certificate.Certificate;
import dev.stagecraft.executor.step.RemoteConnector.PermanentConnectionException;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import net.schmizz.sshj.common.Buffer;
import net.schmizz.sshj.common.KeyType;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;

/**
 * An OpenSSH user certificate ({@code ssh-ed25519-cert-v01@openssh.com AAAA...}, what {@code
 * ssh-keygen -s CA -I id -n USER key.pub} writes) offered with its private key in {@code publickey}
 * authentication.
 *
 * <p>sshj 0.40.0 knows the certificate key types and signs with them, but its {@code
 * OpenSSHKeyV1KeyFile.init(privateKey, publicKey)} drops the public-key text it is given
 * (hierynomus/sshj#907, #962), so {@code SSHClient.loadKeys(key, certificate, null)} silently
 * offers the bare key. {@link #pairedWith} pairs them itself: the private key signs, the
 * certificate is what the server sees.
 *
 * <p>The server does not say why it refused a certificate, so {@link #whyRefused} reads the likely
 * reason from the certificate itself (expired, not yet valid, the user not among its principals)
 * for the error message. It does not refuse anything on its own: with {@code
 * AuthorizedPrincipalsFile} a server may accept principals other than the user name. The
 * certificate is not secret (the server logs it); only the private key is. Immutable.
 */
final class UserCertificate {
  private static final long USER_CERTIFICATE = 1;

  private final Certificate<?> certificate;

  private UserCertificate(Certificate<?> certificate) {
    this.certificate = certificate;
  }

  /**
   * Reads {@code <type>-cert-v01@openssh.com <base64> [comment]}.
   *
   * @param prefix "" or "bastion: " (for messages)
   * @throws PermanentConnectionException when the text is not an OpenSSH user certificate
   */
  static UserCertificate parse(String text, String prefix) throws PermanentConnectionException {
    String[] parts = text.strip().split("\\s+");
    PublicKey key;
    try {
      if (parts.length < 2 || !parts[0].contains("-cert-v01@openssh.com")) {
        throw new IllegalArgumentException("not a certificate type");
      }
      key = new Buffer.PlainBuffer(Base64.getDecoder().decode(parts[1])).readPublicKey();
    } catch (IOException | RuntimeException e) {
      throw new PermanentConnectionException(
          prefix
              + "certificate could not be read: expected the text of an OpenSSH user certificate"
              + " such as \"ssh-ed25519-cert-v01@openssh.com AAAA...\" (the *-cert.pub file that"
              + " ssh-keygen -s writes)");
    }
    if (!(key instanceof Certificate<?> certificate)) {
      throw new PermanentConnectionException(
          prefix + "certificate is a plain " + parts[0] + " public key, not a certificate");
    }
    if (certificate.getType() != USER_CERTIFICATE) {
      throw new PermanentConnectionException(
          prefix
              + "certificate \""
              + certificate.getId()
              + "\" is a host certificate; a user certificate (ssh-keygen -s without -h) is"
              + " needed to log in");
    }
    return new UserCertificate(certificate);
  }

  /**
   * The key provider that signs with {@code key} and presents this certificate.
   *
   * @throws PermanentConnectionException when the certificate was issued for another key
   */
  KeyProvider pairedWith(KeyProvider key, String prefix) throws IOException {
    PublicKey own = key.getPublic();
    if (!Arrays.equals(own.getEncoded(), certificate.getKey().getEncoded())) {
      throw new PermanentConnectionException(
          prefix
              + "certificate \""
              + certificate.getId()
              + "\" was issued for the key "
              + fingerprint(certificate.getKey())
              + ", not for private_key ("
              + fingerprint(own)
              + "): sign the public key of private_key, or use the key the certificate is for");
    }
    KeyType type = KeyType.fromKey(certificate);
    return new KeyProvider() {
      @Override
      public PrivateKey getPrivate() throws IOException {
        return key.getPrivate();
      }

      @Override
      public PublicKey getPublic() {
        return certificate;
      }

      @Override
      public KeyType getType() {
        return type;
      }
    };
  }

  /**
   * Why a server would refuse this certificate for {@code user} at {@code now}, as a sentence for
   * an error message; the generic reasons (the CA is not trusted, a principals file or option that
   * does not allow it) when the certificate itself looks usable.
   */
  String whyRefused(String user, Instant now) {
    String what = "certificate \"" + certificate.getId() + "\"";
    Instant before = instant(certificate.getValidBefore());
    Instant after = instant(certificate.getValidAfter());
    if (before != null && !now.isBefore(before)) {
      return what
          + " expired at "
          + before
          + ": issue a new one (ssh-keygen -s CA -V ...) and set it as certificate";
    }
    if (after != null && now.isBefore(after)) {
      return what + " is not valid before " + after + " (check the -V of ssh-keygen and clocks)";
    }
    if (!certificate.getValidPrincipals().contains(user)) {
      return what
          + " lists the principals "
          + (certificate.getValidPrincipals().isEmpty()
              ? "(none)"
              : String.join(", ", certificate.getValidPrincipals()))
          + ", not the user "
          + user
          + ": issue it with ssh-keygen -n "
          + user
          + ", or log in as one of its principals (unless the server's AuthorizedPrincipalsFile"
          + " maps them)";
    }
    return what
        + " looks valid for "
        + user
        + ": check that the server trusts its CA (TrustedUserCAKeys) and allows its principals";
  }

  /** Null for OpenSSH's "forever" bounds (0 and 2^64-1), which sshj turns into odd dates. */
  private static Instant instant(Date date) {
    if (date == null || date.getTime() <= 0 || date.getTime() == Long.MAX_VALUE) {
      return null;
    }
    return date.toInstant();
  }

  private static String fingerprint(PublicKey key) {
    try {
      byte[] blob = new Buffer.PlainBuffer().putPublicKey(key).getCompactData();
      byte[] sha = MessageDigest.getInstance("SHA-256").digest(blob);
      return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(sha);
    } catch (NoSuchAlgorithmException | RuntimeException e) {
      return key.getAlgorithm() + " key";
    }
  }
}
