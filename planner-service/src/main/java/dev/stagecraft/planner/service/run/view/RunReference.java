package dev.stagecraft.planner.service.run.view;

/** A run known by its id only (its key made it, and it has no record yet). */
public record RunReference(String id) {}
