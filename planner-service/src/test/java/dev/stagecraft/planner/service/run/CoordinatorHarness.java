package dev.stagecraft.planner.service.run;

import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionDispatched;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.schemas.run.RunTransitioned;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.state.StateRecorded;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fixture the coordinator tests share: a {@link RunCoordinator} over the given lock and state
 * ports and clock, whose events go to the recording outbox {@link #published} (thread-safe, in
 * order), with ids from the counter {@link #ids} and uploaded files under a fresh temporary {@link
 * #uploadRoot}. {@link #close()} it after each test.
 */
final class CoordinatorHarness implements AutoCloseable {
  final AtomicInteger ids = new AtomicInteger();
  final List<EventEnvelope> published = new CopyOnWriteArrayList<>();
  final Path uploadRoot = newTempDirectory();
  final Clock clock;
  final RunCoordinator coordinator;

  CoordinatorHarness(WorkspaceLocks locks, WorkspaceStates states, Clock clock) {
    this(locks, states, clock, SecretsKeyring.none());
  }

  /** With a secrets keyring: dispatches are sealed, and sealed prior values opened. */
  CoordinatorHarness(
      WorkspaceLocks locks, WorkspaceStates states, Clock clock, SecretsKeyring secrets) {
    this.clock = clock;
    this.coordinator =
        new RunCoordinator(
            locks,
            states,
            events -> events.forEach(e -> published.add(e.envelope())),
            new EventCodec("/test", clock, () -> "e" + ids.incrementAndGet()),
            clock,
            () -> "id" + ids.incrementAndGet(),
            new UploadedFiles(uploadRoot),
            secrets);
  }

  /**
   * A run of tenant {@code acme} on {@code workspace} with {@link RunCoordinatorTest#TWO_STEPS} (a
   * {@code db} action with one step, then an {@code app} action that depends on it).
   */
  static RunRequest twoSteps(String workspace) {
    return request("acme", workspace, RunCoordinatorTest.TWO_STEPS);
  }

  /**
   * A run of {@code tenant} on {@code workspace} applying {@code mainTf} as {@code main.tf}: no
   * support files or variables, requested by {@code tester}, parallelism 10.
   */
  static RunRequest request(String tenant, String workspace, String mainTf) {
    return new RunRequest(
        tenant,
        workspace,
        Map.of("main.tf", mainTf),
        Map.of(),
        false,
        List.of(),
        null,
        null,
        "tester",
        10);
  }

  /** A new temporary directory; an I/O failure is rethrown unchecked. */
  static Path newTempDirectory() {
    try {
      return Files.createTempDirectory("run-coordinator-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The data of the published events of {@code type}, in publication order. */
  <T> List<T> ofType(String type, Class<T> data) {
    return published.stream()
        .filter(e -> e.type().equals(type))
        .map(e -> EventCodec.data(e, data))
        .toList();
  }

  /** The actions dispatched so far, in order. */
  List<ActionDispatched> dispatched() {
    return ofType("dev.stagecraft.action.dispatched", ActionDispatched.class);
  }

  /** The statuses announced for {@code run} (envelopes whose run id is the run's), in order. */
  List<String> statuses(Run run) {
    return published.stream()
        .filter(e -> e.type().equals("dev.stagecraft.run.transitioned"))
        .filter(e -> run.id().equals(e.runid()))
        .map(e -> EventCodec.data(e, RunTransitioned.class).status())
        .toList();
  }

  /**
   * Hands the coordinator the state service's report that {@code action} was recorded with {@code
   * outcome}, as an event of {@code tenant}/{@code workspace} from source {@code /state}.
   */
  void stateRecorded(
      String tenant,
      String workspace,
      ActionDispatched action,
      String outcome,
      String error,
      long serial) {
    coordinator.onStateRecorded(
        new EventCodec("/state", clock, () -> "s" + ids.incrementAndGet())
            .wrap(
                tenant,
                workspace,
                action.runId(),
                1,
                action.address(),
                new StateRecorded(
                    action.runId(),
                    action.actionId(),
                    action.address(),
                    outcome,
                    error,
                    serial,
                    "x")));
  }

  /**
   * As {@link #stateRecorded(String, String, ActionDispatched, String, String, long)}, as an event
   * of the tenant and workspace the action was dispatched for.
   */
  void stateRecorded(ActionDispatched action, String outcome, String error, long serial) {
    EventEnvelope dispatch =
        published.stream()
            .filter(e -> e.type().equals("dev.stagecraft.action.dispatched"))
            .filter(e -> e.id().equals(action.actionId()))
            .findFirst()
            .orElseThrow(() -> new AssertionError(action.actionId() + " was not dispatched"));
    stateRecorded(dispatch.tenant(), dispatch.workspace(), action, outcome, error, serial);
  }

  /** Stops the coordinator, then deletes the upload root. */
  @Override
  public void close() {
    coordinator.close();
    UploadedFiles.delete(uploadRoot);
  }
}
