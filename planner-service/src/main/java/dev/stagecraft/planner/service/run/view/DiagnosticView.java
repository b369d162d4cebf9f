package dev.stagecraft.planner.service.run.view;

import dev.stagecraft.language.diag.Diagnostic;

/** One diagnostic of a configuration with errors, as a problem document lists it. */
public record DiagnosticView(String severity, String summary, String detail, String range) {

  public static DiagnosticView of(Diagnostic d) {
    return new DiagnosticView(
        d.severity().name().toLowerCase(),
        d.summary(),
        d.detail(),
        d.range() == null ? null : d.range().toString());
  }
}
