package dev.stagecraft.planner.service.adapter.http;

import static dev.stagecraft.planner.service.adapter.http.ApiProblems.problem;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.RunJournalFollowers;
import dev.stagecraft.planner.service.adapter.db.RunJournalStore;
import dev.stagecraft.planner.service.adapter.db.RunStore;
import dev.stagecraft.planner.service.run.Run;
import dev.stagecraft.planner.service.run.RunCoordinator;
import dev.stagecraft.planner.service.run.journal.RunEvent;
import dev.stagecraft.planner.service.run.view.RunEventsPage;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What followers of a run read: {@code GET /api/v1/runs/{id}/logs} (Server-Sent Events, resumable
 * with {@code Last-Event-ID}) and {@code GET /api/v1/runs/{id}/events?after=N} (long poll). A run
 * this instance drives is read from memory (and its records before a restart); any other from its
 * recorded journal (docs/adr/0032).
 */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RunEventsController {
  private final RunCoordinator coordinator;
  private final ApiAuth auth;
  private final RunStore runStore;
  // every run's recorded journal: logs of runs another instance drives (docs/adr/0032)
  private final RunJournalStore runJournal;
  // wakes the followers of recorded journals (docs/adr/0037)
  private final RunJournalFollowers runLogFollowers;

  public RunEventsController(
      RunCoordinator coordinator,
      ApiAuth auth,
      RunStore runStore,
      RunJournalStore runJournal,
      RunJournalFollowers runLogFollowers) {
    this.coordinator = coordinator;
    this.auth = auth;
    this.runStore = runStore;
    this.runJournal = runJournal;
    this.runLogFollowers = runLogFollowers;
  }

  @Get("/runs/{id}/events")
  public HttpResponse<?> events(
      HttpRequest<?> request,
      @PathVariable String id,
      @QueryValue(defaultValue = "0") long after,
      @QueryValue(defaultValue = "10") int wait)
      throws InterruptedException {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    HttpResponse<?> outOfRange =
        RequestRanges.first(
            RequestRanges.SEQUENCE.check(after), RequestRanges.WAIT_SECONDS.check(wait));
    if (outOfRange != null) {
      return outOfRange;
    }
    Optional<Run> run = coordinator.find(principal.get().tenant(), id);
    if (run.isEmpty()) {
      return recordedEvents(principal.get().tenant(), id, after, wait);
    }
    // a resumed run's entries from before the restart (up to its journal's base) come from its
    // records, followed by what this instance has of it: one answer holds both
    long base = run.get().journal().base();
    List<RunEvent> events = new ArrayList<>();
    if (after < base) {
      try {
        events.addAll(
            runJournal.after(principal.get().tenant(), id, after, base, RunLogStream.PAGE));
      } catch (SQLException | IllegalStateException e) {
        return ApiProblems.recordsUnavailable(id);
      }
    }
    boolean more = events.size() >= RunLogStream.PAGE;
    if (!more) {
      Duration waitFor = events.isEmpty() ? Duration.ofSeconds(wait) : Duration.ZERO;
      events.addAll(run.get().journal().after(Math.max(after, base), waitFor));
    }
    Run.RunSummary summary = run.get().summary();
    // a full page of records: more to read
    return HttpResponse.ok(
        new RunEventsPage(events, summary.status(), summary.terminal() && !more));
  }

  /**
   * The run's journal as Server-Sent Events ({@code text/event-stream}; see {@link RunLogStream}):
   * each entry an event whose id is its sequence. A client that reconnects with {@code
   * Last-Event-ID: N} gets exactly the entries after N; the stream ends after the terminal
   * transition. Another tenant's run is 404, like a run that does not exist. A run this instance
   * does not drive (another instance does, or it ran before a restart) is streamed from its
   * recorded journal, with the same ids (docs/adr/0032).
   */
  @Get(value = "/runs/{id}/logs", produces = MediaType.TEXT_EVENT_STREAM)
  public HttpResponse<?> logs(
      HttpRequest<?> request,
      @PathVariable String id,
      @Nullable @Header("Last-Event-ID") String lastEventId) {
    Optional<Principal> principal = auth.principal(request);
    if (principal.isEmpty()) {
      return ApiProblems.unauthorized();
    }
    String tenant = principal.get().tenant();
    Optional<Run> run = coordinator.find(tenant, id);
    if (run.isEmpty()) {
      try {
        if (runStore.find(tenant, id).isEmpty()) {
          return ApiProblems.notFound(id);
        }
      } catch (SQLException e) {
        return ApiProblems.recordsUnavailable(id);
      }
    }
    long after = 0;
    if (lastEventId != null && !lastEventId.isBlank()) {
      try {
        after = Long.parseLong(lastEventId.strip());
        if (after < 0) {
          throw new NumberFormatException("negative");
        }
      } catch (NumberFormatException e) {
        return problem(
            HttpStatus.BAD_REQUEST,
            "Invalid Last-Event-ID",
            "Last-Event-ID must be the id of an event of this stream (a sequence number); got '"
                + lastEventId
                + "'. Omit it to read the run's log from the start.");
      }
    }
    RunLogStream.Source source =
        run.isPresent()
            ? RunLogStream.live(run.get(), runJournal)
            : RunLogStream.recorded(tenant, id, runJournal, runStore, runLogFollowers);
    return HttpResponse.ok(new RunLogStream(id, source, after))
        .contentType(MediaType.TEXT_EVENT_STREAM_TYPE);
  }

  /**
   * The events of a run this planner does not hold in memory (it ran before a restart, or on
   * another instance): its recorded journal (docs/adr/0032), long-polled: when nothing is newer the
   * request waits, up to {@code wait} seconds, for the recording instance's notification that
   * entries of the run were recorded (docs/adr/0037; at least every safety re-read interval it
   * reads again), then answers what is newer, or nothing at the deadline. A run that ended without
   * its terminal entry recorded answers that entry made from its record (see {@link
   * RunLogStream#missingTerminal}). A run recorded before journals were (no journal rows) answers
   * its recorded transitions ({@link #transitionEvents}). A run that is not recorded is 404.
   */
  private HttpResponse<?> recordedEvents(String tenant, String id, long after, int wait)
      throws InterruptedException {
    try (var watch = runLogFollowers.watch(id)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(wait).toNanos();
      while (true) {
        long seen = watch.version(); // before the reads: anything recorded after them changes it
        Optional<RunStore.RunRecord> recorded = runStore.find(tenant, id);
        if (recorded.isEmpty()) {
          return ApiProblems.notFound(id);
        }
        if (runJournal.lastRecorded(tenant, id) == 0) {
          return transitionEvents(recorded.get(), after); // recorded before journals were
        }
        List<RunEvent> entries =
            runJournal.after(tenant, id, after, Long.MAX_VALUE, RunLogStream.PAGE);
        if (entries.isEmpty() && recorded.get().terminal()) {
          RunEvent missing =
              RunLogStream.missingTerminal(recorded.get(), runJournal.last(tenant, id), after);
          entries = missing == null ? List.of() : List.of(missing);
        }
        long left = deadline - System.nanoTime();
        if (!entries.isEmpty() || recorded.get().terminal() || left <= 0) {
          boolean terminal = recorded.get().terminal() && entries.size() < RunLogStream.PAGE;
          return HttpResponse.ok(new RunEventsPage(entries, recorded.get().status(), terminal));
        }
        // a park until the run's entries are notified, bounded by this request's deadline
        watch.await(seen, Duration.ofNanos(left));
      }
    } catch (SQLException | IllegalStateException e) {
      return ApiProblems.recordsUnavailable(id);
    }
  }

  /**
   * The events of a run recorded before journals were (no journal rows): its recorded transitions
   * after {@code after}, as status events numbered by their event sequence.
   */
  private HttpResponse<?> transitionEvents(RunStore.RunRecord recorded, long after)
      throws SQLException {
    List<RunEvent> events = new ArrayList<>();
    for (RunStore.Transition t : runStore.transitions(recorded.tenant(), recorded.id())) {
      if (t.sequence() > after) {
        events.add(
            new RunEvent(
                t.sequence(), t.at(), "status", t.status(), null, null, null, t.message()));
      }
    }
    return HttpResponse.ok(new RunEventsPage(events, recorded.status(), recorded.terminal()));
  }
}
