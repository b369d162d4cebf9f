package dev.stagecraft.cli;

/** A mistake in how a command was invoked; printed with a hint, exit code 1. */
public final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }
}
