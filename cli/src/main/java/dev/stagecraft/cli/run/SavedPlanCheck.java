package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.plan.PlanCodec;
import dev.stagecraft.planner.plan.PlanComparison;

/**
 * Before {@code apply FILE} starts a run, the plan made now for the saved request ({@code POST
 * /plans}, which changes nothing) is compared with the saved one: when its digest differs, the
 * apply is refused here, saying which changes differ ({@link PlanComparison} of the two plan
 * documents, read back with {@link PlanCodec}) — not just that two digests do. The run itself is
 * still refused by the planner when the plan it makes under the workspace lock differs (the state
 * may move between the two).
 */
final class SavedPlanCheck {
  private SavedPlanCheck() {}

  /**
   * Why the saved plan cannot be applied as it is, or null when the plan made now is the saved one.
   *
   * @param name the plan file's name, as the user gave it
   * @param saved the saved plan file ({@code digest}, {@code prior_serial}, {@code plan})
   * @param planned the answer of {@code POST /plans} for the saved request
   */
  static String refusal(String name, JsonNode saved, JsonNode planned) {
    String digest = saved.path("digest").asText();
    if (digest.equals(planned.path("digest").asText())) {
      return null;
    }
    long savedSerial = saved.path("prior_serial").asLong();
    long serialNow = planned.path("prior_serial").asLong();
    StringBuilder out = new StringBuilder();
    if (savedSerial != serialNow) {
      out.append("The saved plan ")
          .append(name)
          .append(" is stale: the workspace's state moved from serial ")
          .append(savedSerial)
          .append(" to ")
          .append(serialNow)
          .append(" since it was planned.");
    } else {
      out.append("The saved plan ")
          .append(name)
          .append(" no longer matches what applying it would do now (the configuration, variables")
          .append(" or state differ).");
    }
    out.append(" What differs from the saved plan:\n")
        .append(differences(saved.get("plan"), planned.get("plan")))
        .append("\nNothing was applied. Create a new plan and apply that.");
    return out.toString();
  }

  /** The differences, one indented line each (no value is ever in them). */
  private static String differences(JsonNode saved, JsonNode now) {
    try {
      PlanComparison comparison =
          PlanComparison.between(PlanCodec.decode(saved), PlanCodec.decode(now));
      return comparison.same()
          ? "  (no change differs: the plans differ in a field this version does not compare)"
          : comparison.describe();
    } catch (PlanCodec.InvalidPlanException e) {
      // a plan file written by another version, or edited: the digests still decide
      return "  (the saved plan cannot be read back to compare it: " + e.getMessage() + ")";
    }
  }
}
