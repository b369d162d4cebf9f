package dev.stagecraft.schemas.action;

/**
 * One line of provisioner output, already redacted.
 *
 * @param stream {@code stdout}, {@code stderr} or {@code system} (messages of the executor itself)
 * @param step index of the provisioner within the action
 */
public record ActionLog(
    String runId, String actionId, String address, int step, String stream, String line)
    implements ActionEvent {}
