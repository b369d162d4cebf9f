package dev.stagecraft.schemas.action;

/**
 * An executor is still running an action. Sent every {@code stagecraft.executor.heartbeat-interval}
 * (default 2 s) from {@code action.started} until {@code action.finished}; the planner treats an
 * action that sent neither for the action lease as interrupted (docs/adr/0007).
 *
 * @param step index of the provisioner step running now, or {@code null} between steps
 * @param stepType that step's provisioner type ({@code local-exec}, {@code remote-exec}, ...)
 * @param stepTarget where it runs: {@code user@host:port} for SSH steps, {@code null} for steps
 *     that run on the executor host
 */
public record ActionHeartbeat(
    String runId,
    String actionId,
    String address,
    String executorId,
    Integer step,
    String stepType,
    String stepTarget)
    implements ActionEvent {}
