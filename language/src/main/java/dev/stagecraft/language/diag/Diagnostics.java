package dev.stagecraft.language.diag;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An ordered, append-only collection of {@link Diagnostic}s. Not thread-safe: one instance belongs
 * to one parse/evaluation/load call.
 */
public final class Diagnostics {
  private final List<Diagnostic> items = new ArrayList<>();

  public Diagnostics add(Diagnostic d) {
    items.add(d);
    return this;
  }

  public Diagnostics error(String summary, String detail, SourceRange range) {
    return add(Diagnostic.error(summary, detail, range));
  }

  public Diagnostics warning(String summary, String detail, SourceRange range) {
    return add(Diagnostic.warning(summary, detail, range));
  }

  public Diagnostics addAll(Diagnostics other) {
    items.addAll(other.items);
    return this;
  }

  public boolean hasErrors() {
    return items.stream().anyMatch(Diagnostic::isError);
  }

  public boolean isEmpty() {
    return items.isEmpty();
  }

  public int size() {
    return items.size();
  }

  public List<Diagnostic> list() {
    return Collections.unmodifiableList(items);
  }

  public List<Diagnostic> errors() {
    return items.stream().filter(Diagnostic::isError).toList();
  }

  /** Renders every diagnostic; {@code sources} maps file name to text for source excerpts. */
  public String render(Map<String, String> sources) {
    return items.stream()
        .map(d -> d.render(d.range() == null ? null : sources.get(d.range().file())))
        .collect(Collectors.joining("\n"));
  }

  @Override
  public String toString() {
    return items.toString();
  }
}
