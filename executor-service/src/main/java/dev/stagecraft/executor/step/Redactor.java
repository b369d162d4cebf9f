package dev.stagecraft.executor.step;

import java.util.Collection;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Replaces every occurrence of a sensitive value by {@value #PLACEHOLDER}. Thread-safe (immutable).
 *
 * <p>Replacement is one pass over the text with the longest values tried first, so a value that
 * contains another is hidden whole and a placeholder is never redacted again.
 *
 * <p>Output is redacted line by line, so a multi-line value (a private key, a certificate) printed
 * by a command would never match whole. Each line of such a value that is at least {@value
 * #MIN_LINE_LENGTH} characters long is therefore redacted on its own too (shorter lines, such as a
 * closing brace, are too common to hide and reveal too little).
 */
public final class Redactor {
  public static final String PLACEHOLDER = "(sensitive value)";
  static final int MIN_LINE_LENGTH = 16;

  private final Pattern pattern;

  public Redactor(Collection<String> sensitiveValues) {
    String alternation =
        sensitiveValues.stream()
            .filter(v -> v != null && !v.isEmpty())
            .flatMap(
                v ->
                    Stream.concat(
                        Stream.of(v),
                        v.lines().map(String::strip).filter(l -> l.length() >= MIN_LINE_LENGTH)))
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
