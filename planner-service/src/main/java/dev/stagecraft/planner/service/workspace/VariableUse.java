package dev.stagecraft.planner.service.workspace;

import java.util.Locale;

/**
 * What a run's record and {@code runs show} say of one variable it used: its name, category ({@code
 * terraform} or {@code env}), where its value came from ({@link VariableOrigin#describe}) and
 * whether it is sensitive — never its value.
 */
public record VariableUse(String key, String category, String source, boolean sensitive) {
  /** The use of {@code variable}. */
  public static VariableUse of(ResolvedVariable variable) {
    return new VariableUse(
        variable.key(),
        variable.category().name().toLowerCase(Locale.ROOT),
        variable.origin().describe(),
        variable.sensitive());
  }
}
