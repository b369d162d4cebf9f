package dev.stagecraft.planner.service.source;

/**
 * A configuration source could not give a configuration: the repository cannot be reached, the
 * credentials are refused, the ref or commit does not exist, or the directory holds no {@code .tf}
 * file. The message says which, and what to do; it never holds a credential.
 */
public final class SourceUnavailable extends Exception {
  private static final long serialVersionUID = 1L;

  public SourceUnavailable(String message) {
    super(message);
  }

  public SourceUnavailable(String message, Throwable cause) {
    super(message, cause);
  }
}
