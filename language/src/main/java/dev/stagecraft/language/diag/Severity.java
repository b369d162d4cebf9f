package dev.stagecraft.language.diag;

/** How serious a {@link Diagnostic} is: an error stops the operation, a warning does not. */
public enum Severity {
  ERROR,
  WARNING
}
