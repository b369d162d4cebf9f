package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.EventSighting;
import dev.stagecraft.chaos.history.History;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * No committed event is lost (design §9): every event seen committed upstream on a stream was seen
 * downstream on the same stream, by its id — else {@link ViolationKind#EVENT_LOST}. Duplicates
 * downstream are not violations here (consumers are idempotent by event id); what they did twice
 * shows up in the state and step checks.
 */
public final class NoLostEvents implements Invariant {

  @Override
  public String name() {
    return "no lost events";
  }

  private record StreamEvent(String stream, String eventId) {}

  @Override
  public List<Violation> check(History history) {
    Set<StreamEvent> downstream = new HashSet<>();
    for (EventSighting e : history.events()) {
      if (e.side() == EventSighting.Side.DOWNSTREAM) {
        downstream.add(new StreamEvent(e.stream(), e.eventId()));
      }
    }
    Set<StreamEvent> reported = new HashSet<>();
    List<Violation> found = new ArrayList<>();
    history.events().stream()
        .filter(e -> e.side() == EventSighting.Side.UPSTREAM)
        .sorted(
            Comparator.comparing(EventSighting::stream)
                .thenComparing(EventSighting::eventId)
                .thenComparing(e -> e.at() == null ? "" : e.at().toString()))
        .forEach(
            e -> {
              StreamEvent key = new StreamEvent(e.stream(), e.eventId());
              if (!downstream.contains(key) && reported.add(key)) {
                found.add(
                    new Violation(
                        ViolationKind.EVENT_LOST,
                        "event "
                            + e.eventId()
                            + " on "
                            + e.stream()
                            + " was committed upstream at "
                            + e.at()
                            + " but never seen downstream",
                        List.of(e.stream(), e.eventId()),
                        List.of(e)));
              }
            });
    return found;
  }
}
