package dev.stagecraft.schemas.seal;

/**
 * A sealed box could not be opened: unknown key id, tampered or truncated ciphertext, associated
 * data of another tenant/workspace/action, or no keyring configured. The message says which and
 * what to do; it never contains key material or plaintext. Permanent: retrying does not help.
 */
public final class UnsealException extends Exception {
  private static final long serialVersionUID = 1L;

  public UnsealException(String message) {
    super(message);
  }

  public UnsealException(String message, Throwable cause) {
    super(message, cause);
  }
}
