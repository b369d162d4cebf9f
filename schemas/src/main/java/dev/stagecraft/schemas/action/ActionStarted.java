package dev.stagecraft.schemas.action;

/** An executor took an action and is about to run its first step. */
public record ActionStarted(String runId, String actionId, String address, String executorId)
    implements ActionEvent {}
