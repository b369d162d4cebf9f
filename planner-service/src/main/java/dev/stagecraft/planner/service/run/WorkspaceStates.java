package dev.stagecraft.planner.service.run;

import dev.stagecraft.planner.apply.KnownHostKeys;
import dev.stagecraft.planner.plan.RemoteStateRead;
import dev.stagecraft.planner.plan.RemoteStateSource;
import java.util.Map;

/** Port to state-service. */
public interface WorkspaceStates {

  /**
   * The host keys a run of the workspace must enforce: the keys trusted on first use in it and the
   * tenant's known hosts (active ones). Read once when a run starts. The default knows none (every
   * unpinned host is then trusted on first use): for test doubles only; the HTTP adapter implements
   * it.
   *
   * @throws IllegalStateException when the state service cannot answer (the run fails rather than
   *     trust hosts it should have checked)
   */
  default KnownHostKeys knownHostKeys(String tenant, String workspace) {
    return KnownHostKeys.NONE;
  }

  /**
   * The root outputs of the workspace a remote state names (docs/planning.md "Remote state", ADR
   * 0063), read with {@code credential}: the state service takes the tenant from it, never from the
   * caller. The default reads {@code tenant}'s state with {@link #read} and refuses http addresses:
   * for test doubles only; the HTTP adapter implements it.
   *
   * @param credential a run's state credential or an API token (a secret: never logged)
   * @throws IllegalStateException when the state service cannot answer
   */
  default RemoteStateRead remoteOutputs(
      String tenant, RemoteStateSource source, String credential) {
    if (source.workspace() == null) {
      return new RemoteStateRead.Refused("this state port reads no http addresses");
    }
    String json = read(tenant, source.workspace());
    if (json == null || json.isBlank()) {
      return new RemoteStateRead.NotFound();
    }
    return RemoteStateRead.fromV4Json(json);
  }

  /** The current state as Terraform v4 JSON (serial 0 and no resources when empty). */
  String read(String tenant, String workspace);

  /**
   * The current state, read with the run's state credential instead of the service token (design
   * §8). The default ignores the credential: for test doubles only; the HTTP adapter implements it.
   *
   * @param runCredential the run's credential from {@link #mintRunCredential}, or null to read with
   *     the service token
   */
  default String read(String tenant, String workspace, String runCredential) {
    return read(tenant, workspace);
  }

  /**
   * Mints the one-off state credential of a run that holds the workspace lock with {@code
   * fencingToken} (docs/adr/0013). The credential is a secret: never log it. The default mints none
   * (null): for test doubles only.
   *
   * @throws IllegalStateException when the state service refuses (stale token) or fails
   */
  default String mintRunCredential(
      String tenant, String workspace, String runId, long fencingToken) {
    return null;
  }

  /**
   * Revokes the run's credential: the state service refuses it from now on. Idempotent. The default
   * does nothing: for test doubles only.
   *
   * @throws IllegalStateException when the state service cannot be reached
   */
  default void revokeRunCredential(String tenant, String workspace, String runId) {}

  /**
   * The outcomes the state service recorded for actions of {@code runId} (the first outcome per
   * action id; docs/adr/0007), by action id, as their {@code state.recorded} events said them:
   * {@code succeeded}, {@code failed} (also for interrupted and canceled actions) or {@code
   * rejected}. A planner carrying a run on after a restart reads them (docs/adr/0035). The default
   * knows none: for test doubles that never carry a run on.
   *
   * @throws IllegalStateException when the state service cannot answer (the run is not carried on
   *     by guessing)
   */
  default Map<String, String> recordedOutcomes(String tenant, String workspace, String runId) {
    throw new IllegalStateException("this state port reads no recorded outcomes");
  }

  /**
   * Records a run's root outputs after its apply succeeded (docs/adr/0064): {@code outputs} (name →
   * {@code {"value", "type", "sensitive"}}, sensitive values sealed) replaces the workspace's
   * outputs, written with the run's credential under its fencing token. The default records
   * nothing: for test doubles only; the HTTP adapter implements it.
   *
   * @param runCredential the run's state credential (a secret: never log it)
   * @throws IllegalStateException when the token is stale (the run lost the lock), the credential
   *     was refused, or the state service failed: the outputs were not recorded
   */
  default void recordOutputs(
      String tenant,
      String workspace,
      String runCredential,
      long fencingToken,
      Map<String, Map<String, Object>> outputs) {}

  /**
   * What a run needs from the state service once it holds the workspace lock (docs/adr/0025).
   *
   * @param runCredential the run's one-off state credential (a secret: never log it), or null from
   *     a test double that mints none
   * @param hostKeys the host keys the run must enforce
   * @param stateV4Json the current state as Terraform v4 JSON, or null when there is none
   */
  record OpenedRun(String runCredential, KnownHostKeys hostKeys, String stateV4Json) {
    @Override
    public String toString() {
      return "OpenedRun[runCredential=..., hostKeys=" + hostKeys + "]";
    }
  }

  /**
   * Opens a run that was just granted the workspace lock with {@code fencingToken}: registers the
   * token ({@link #registerFencingToken}), mints the run's credential ({@link #mintRunCredential}),
   * reads the host keys ({@link #knownHostKeys}) and the current state ({@link #read}) — over HTTP
   * in one request and one state-service transaction. The default makes the four calls in turn: for
   * test doubles; the HTTP adapter implements it in one.
   *
   * @throws IllegalStateException when the token is stale, the run already ended (its credential
   *     was revoked) or the state service failed
   */
  default OpenedRun openRun(String tenant, String workspace, String runId, long fencingToken) {
    registerFencingToken(tenant, workspace, fencingToken);
    String credential = mintRunCredential(tenant, workspace, runId, fencingToken);
    KnownHostKeys keys = knownHostKeys(tenant, workspace);
    return new OpenedRun(credential, keys, read(tenant, workspace, credential));
  }

  /**
   * Announces a newly issued fencing token so the state service refuses older writers from now on.
   *
   * @throws IllegalStateException when the state service already saw a newer token
   */
  void registerFencingToken(String tenant, String workspace, long token);

  /**
   * Marks the instance at {@code address} tainted ({@code tainted = true}) or clears the mark, as
   * the holder of the workspace lock with {@code fencingToken}. Marking a tainted instance again
   * succeeds without a change; clearing a mark is not idempotent (a retry after a lost answer is
   * told {@link Refusal#NOT_TAINTED}).
   *
   * @param actor who asked, stored with the state event
   * @throws IllegalStateException when the state service saw a newer fencing token (the lock was
   *     lost) or failed
   */
  TaintChange changeTaint(
      String tenant,
      String workspace,
      String address,
      boolean tainted,
      long fencingToken,
      String actor);

  /** The answer to {@link #changeTaint}: the new serial, or why nothing was changed. */
  sealed interface TaintChange permits TaintChanged, TaintRefused {}

  /** Done; {@code serial} is the state's serial afterwards. */
  record TaintChanged(long serial) implements TaintChange {}

  /** Nothing changed; {@code detail} is the state service's explanation. */
  record TaintRefused(Refusal refusal, String detail) implements TaintChange {}

  /** Why a taint change was refused: expected outcomes of user input, not failures. */
  enum Refusal {
    /** Not an instance address of a managed resource. */
    INVALID_ADDRESS,
    /** The state has no instance at the address. */
    NO_SUCH_INSTANCE,
    /** Untaint of an instance that is not tainted. */
    NOT_TAINTED
  }
}
