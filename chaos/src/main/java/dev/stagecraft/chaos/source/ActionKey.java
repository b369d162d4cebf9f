package dev.stagecraft.chaos.source;

/** An action of a run ({@code actionId} is {@code <run>/<address>}). */
public record ActionKey(String runId, String actionId) {}
