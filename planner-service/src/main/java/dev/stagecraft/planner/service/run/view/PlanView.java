package dev.stagecraft.planner.service.run.view;

import dev.stagecraft.planner.plan.Plan;
import dev.stagecraft.planner.plan.PlanJson;
import dev.stagecraft.planner.plan.PlanRenderer;
import java.util.Map;

/**
 * The answer of {@code POST /api/v1/plans} (written with snake_case names: {@code prior_serial},
 * {@code has_changes}): the plan as data and as text, and the state serial it was planned against.
 *
 * @param hasChanges whether applying it changes anything; output-only changes count (docs/adr/0064)
 */
public record PlanView(
    String workspace,
    long priorSerial,
    boolean hasChanges,
    String digest,
    Map<String, Object> plan,
    String rendered) {

  public static PlanView of(String workspace, long priorSerial, Plan plan) {
    return new PlanView(
        workspace,
        priorSerial,
        plan.applies(),
        plan.digest(),
        PlanJson.toMap(plan),
        PlanRenderer.render(plan));
  }
}
