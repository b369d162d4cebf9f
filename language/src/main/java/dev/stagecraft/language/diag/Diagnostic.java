package dev.stagecraft.language.diag;

import java.util.Objects;

/**
 * One problem found in user input, with where it is and what to do about it. Modelled on
 * Terraform's {@code tfdiags}: a short summary, a detail sentence or two, and a source range.
 */
public record Diagnostic(Severity severity, String summary, String detail, SourceRange range) {

  public Diagnostic {
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(summary, "summary");
    detail = detail == null ? "" : detail;
  }

  public static Diagnostic error(String summary, String detail, SourceRange range) {
    return new Diagnostic(Severity.ERROR, summary, detail, range);
  }

  public static Diagnostic warning(String summary, String detail, SourceRange range) {
    return new Diagnostic(Severity.WARNING, summary, detail, range);
  }

  public boolean isError() {
    return severity == Severity.ERROR;
  }

  /** Renders without the offending source line. */
  public String render() {
    return render(null);
  }

  /**
   * Renders like Terraform:
   *
   * <pre>
   * Error: summary
   *
   *   on main.tf line 3 (main.tf:3:5):
   *    3:   source line
   *
   * detail
   * </pre>
   *
   * @param sourceText the text of the file {@link #range()} points into, or null if unavailable
   */
  public String render(String sourceText) {
    StringBuilder sb = new StringBuilder();
    sb.append(severity == Severity.ERROR ? "Error: " : "Warning: ").append(summary).append('\n');
    if (range != null) {
      sb.append("\n  on ")
          .append(range.file())
          .append(" line ")
          .append(range.line())
          .append(" (")
          .append(range)
          .append("):\n");
      String line = sourceText == null ? null : sourceLine(sourceText, range.line());
      if (line != null) {
        sb.append(String.format("  %3d: %s%n", range.line(), line));
      }
    }
    if (!detail.isEmpty()) {
      sb.append('\n').append(detail).append('\n');
    }
    return sb.toString();
  }

  private static String sourceLine(String text, int line) {
    String[] lines = text.split("\r?\n", -1);
    return line >= 1 && line <= lines.length ? lines[line - 1] : null;
  }

  @Override
  public String toString() {
    return severity + " " + (range == null ? "" : range + ": ") + summary + ": " + detail;
  }
}
