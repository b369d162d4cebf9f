package dev.stagecraft.schemas;

import java.util.List;

/** Kafka topic names. Keys and ordering are documented in docs/events.md. */
public final class Topics {
  /**
   * Planner → executors: actions ready to run. Key: run id + action id (spread for parallelism).
   */
  public static final String ACTIONS = "stagecraft.actions";

  /** Executors → state-service and planner: started, log lines, finished. Key: tenant/workspace. */
  public static final String ACTION_EVENTS = "stagecraft.action-events";

  /** State-service → planner: an action's outcome is durably recorded. Key: tenant/workspace. */
  public static final String STATE_EVENTS = "stagecraft.state-events";

  /**
   * Planner → bots (principal {@code trigger}): run lifecycle transitions. Key: tenant/workspace.
   */
  public static final String RUN_EVENTS = "stagecraft.run-events";

  /**
   * Planner → every executor instance (one consumer group per instance, from the latest offset):
   * requests to stop a run's running actions. Key: tenant/workspace.
   */
  public static final String CONTROL = "stagecraft.control";

  /**
   * Lock-service → the planner (and auditors given read access): workspace lock events with an
   * audit value, such as a force-unlock (who, why; published from the lock service's outbox, ADR
   * 0020) or an expired lease. Key: tenant/workspace.
   */
  public static final String LOCK_EVENTS = "stagecraft.lock-events";

  /**
   * Bots, chat-ops and CI → planner: {@code run.requested} triggers (CloudEvents, structured JSON
   * mode), each signed with the tenant's trigger secret in the record headers (docs/chatops.md, ADR
   * 0016). One consumer group across planner instances. Key: free; bots should use the idempotency
   * key (duplicates then meet on one partition).
   */
  public static final String RUN_REQUESTS = "stagecraft.run-requests";

  /**
   * Planner → planner (compacted, read from the start by every instance): each tenant's trigger
   * secrets, sealed with the secrets keyring. Key: tenant. Not events: no envelope.
   */
  public static final String TRIGGER_SECRETS = "stagecraft.trigger-secrets";

  /**
   * The executors' consumer group on {@link #ACTIONS}. An executor claims a dispatch by committing
   * the group's offset past it before running it (docs/adr/0007), so a committed offset past a
   * dispatch means an executor took it (ran it, or declined it: too old, run canceled).
   */
  public static final String EXECUTORS_GROUP = "executors";

  /**
   * Prefix of each executor instance's own consumer group on {@link #CONTROL} ({@code
   * executors-control-<executor id>-<random>}): every instance reads every cancel.
   */
  public static final String EXECUTOR_CONTROL_GROUP_PREFIX = EXECUTORS_GROUP + "-control-";

  /** The state service's consumer group on {@link #ACTION_EVENTS}. */
  public static final String STATE_GROUP = "state-service";

  /**
   * Prefix of each planner instance's own listener groups ({@code planner-<instance id>-<random>-…}
   * on {@link #STATE_EVENTS}, {@link #ACTION_EVENTS}, {@link #LOCK_EVENTS}), read from the latest
   * offset, never committed (docs/adr/0028).
   */
  public static final String PLANNER_GROUP_PREFIX = "planner-";

  /** The planners' shared consumer group on {@link #RUN_REQUESTS}. */
  public static final String RUN_REQUESTS_GROUP = "stagecraft-planner-run-requests";

  public static final List<String> ALL =
      List.of(
          ACTIONS,
          ACTION_EVENTS,
          STATE_EVENTS,
          RUN_EVENTS,
          CONTROL,
          LOCK_EVENTS,
          RUN_REQUESTS,
          TRIGGER_SECRETS);

  /** Topics that keep the latest value per key ({@code cleanup.policy=compact}). */
  public static final List<String> COMPACTED = List.of(TRIGGER_SECRETS);

  private Topics() {}
}
