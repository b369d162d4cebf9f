package dev.stagecraft.schemas.seal;

/**
 * The wire form of a sealed secret: AES-256-GCM ciphertext with the id of the key that sealed it.
 * Opening needs the same key and the same associated data (see {@link SecretsKeyring#open}).
 *
 * @param alg always {@value #ALG}; anything else is refused when opening
 * @param kid the id of the key in the keyring ({@code STAGECRAFT_SECRETS_KEYS}) that sealed it
 * @param nonce the random 96-bit GCM nonce, base64
 * @param ciphertext the encrypted payload followed by the 128-bit GCM tag, base64
 */
public record SealedBox(String alg, String kid, String nonce, String ciphertext) {
  public static final String ALG = "A256GCM";
}
