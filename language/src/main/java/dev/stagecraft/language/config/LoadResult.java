package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;

/**
 * The outcome of {@link ConfigLoader#load}. The configuration contains everything that could be
 * decoded, even when there are errors; callers must check {@code diagnostics().hasErrors()}.
 */
public record LoadResult(Configuration config, Diagnostics diagnostics) {
  public boolean hasErrors() {
    return diagnostics.hasErrors();
  }
}
