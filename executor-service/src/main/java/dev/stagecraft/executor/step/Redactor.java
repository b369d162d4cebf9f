package dev.stagecraft.executor.step;

import java.util.Collection;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Replaces every occurrence of a sensitive value by {@value #PLACEHOLDER}. Thread-safe (immutable).
 *
 * <p>Replacement is one pass over the text with the longest values tried first, so a value that
 * contains another is hidden whole and a placeholder is never redacted again.
 */
public final class Redactor {
  public static final String PLACEHOLDER = "(sensitive value)";

  private final Pattern pattern;

  public Redactor(Collection<String> sensitiveValues) {
    String alternation =
        sensitiveValues.stream()
            .filter(v -> v != null && !v.isEmpty())
            .distinct()
            .sorted(Comparator.comparingInt(String::length).reversed())
            .map(Pattern::quote)
            .collect(Collectors.joining("|"));
    this.pattern = alternation.isEmpty() ? null : Pattern.compile(alternation);
  }

  /** The text with every sensitive value replaced; {@code null} stays {@code null}. */
  public String redact(String text) {
    if (text == null || pattern == null) {
      return text;
    }
    return pattern.matcher(text).replaceAll(Matcher.quoteReplacement(PLACEHOLDER));
  }
}
