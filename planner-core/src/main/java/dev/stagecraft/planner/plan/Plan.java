package dev.stagecraft.planner.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A plan is a value: the ordered actions for every instance of the configuration and the state,
 * plus the state it was computed against. Approving a plan means applying exactly these actions;
 * when the workspace's serial moved since {@link #priorSerial()}, the plan is stale.
 */
public record Plan(
    String workspace,
    long priorSerial,
    String priorLineage,
    boolean destroy,
    List<PlannedAction> actions) {

  public Plan {
    actions = List.copyOf(actions);
  }

  public boolean hasChanges() {
    return actions.stream().anyMatch(PlannedAction::isChange);
  }

  public List<PlannedAction> changes() {
    return actions.stream().filter(PlannedAction::isChange).toList();
  }

  public Optional<PlannedAction> action(String address) {
    return actions.stream().filter(a -> a.address().equals(address)).findFirst();
  }

  public int toAdd() {
    return (int) actions.stream().filter(a -> a.action().creates()).count();
  }

  public int toChange() {
    return (int) actions.stream().filter(a -> a.action() == ActionType.UPDATE).count();
  }

  public int toDestroy() {
    return (int) actions.stream().filter(a -> a.action().deletes()).count();
  }

  public int toForget() {
    return (int) actions.stream().filter(a -> a.action() == ActionType.FORGET).count();
  }

  /** SHA-256 of the plan's JSON representation: what an approval names. */
  public String digest() {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(PlanJson.render(this).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
