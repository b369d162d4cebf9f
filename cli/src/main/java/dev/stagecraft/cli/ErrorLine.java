package dev.stagecraft.cli;

/** The CLI's error lines: {@code Error: } once, also before a message the server rendered. */
public final class ErrorLine {
  private ErrorLine() {}

  /**
   * {@code "Error: " + message}, unless the message is already rendered diagnostics (it starts with
   * {@code Error: } or {@code Warning: }): those are printed as they are, never as {@code Error:
   * Error: ...}.
   */
  public static String of(String message) {
    if (message == null) {
      return "Error: (no message)";
    }
    String trimmed = message.stripLeading();
    return trimmed.startsWith("Error: ") || trimmed.startsWith("Warning: ")
        ? trimmed
        : "Error: " + message;
  }
}
