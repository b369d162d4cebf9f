package dev.stagecraft.planner.service.source;

/**
 * How a repository is fetched: anonymously, with an HTTPS token, or with an SSH deploy key. The
 * secret is sealed at rest like a sensitive variable; these records hold it in memory only and
 * never print it.
 */
public sealed interface GitCredentials {
  /** A public repository. */
  record None() implements GitCredentials {}

  /** An HTTPS token (sent as the password; {@code username} defaults to {@code x-access-token}). */
  record HttpsToken(String username, String token) implements GitCredentials {
    @Override
    public String toString() {
      return "HttpsToken[" + username + ", (sensitive)]";
    }
  }

  /** An SSH deploy key: an OpenSSH private key in PEM form. */
  record SshKey(String privateKey) implements GitCredentials {
    @Override
    public String toString() {
      return "SshKey[(sensitive)]";
    }
  }
}
