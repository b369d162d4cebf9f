package dev.stagecraft.planner.service.run.lifecycle;

import java.util.List;
import java.util.Optional;

/**
 * What {@link RunDecider#decide} answered: the events to apply (in order) and the effects to carry
 * out (in order), or a refusal — which may come with events too ({@link Refusal#EXPIRED} discards
 * the run; a lock granted to an ended run is released).
 */
public record Decision(List<RunEvent> events, List<RunEffect> effects, Optional<Refusal> refusal) {
  public Decision {
    events = List.copyOf(events);
    effects = List.copyOf(effects);
  }

  public static Decision refused(Refusal why) {
    return new Decision(List.of(), List.of(), Optional.of(why));
  }

  public boolean isRefused() {
    return refusal.isPresent();
  }
}
