package dev.stagecraft.schemas.control;

/**
 * The planner asks every executor to stop the running actions of a run. Travels on {@code
 * stagecraft.control}, which every executor instance reads in a consumer group of its own from the
 * latest offset: a cancel concerns only actions running now (undispatched ones are never sent).
 *
 * @param reason why, for the executor's log and the actions' error ({@code canceled by alice})
 */
public record RunCancelRequested(String runId, String reason) implements ControlEvent {}
