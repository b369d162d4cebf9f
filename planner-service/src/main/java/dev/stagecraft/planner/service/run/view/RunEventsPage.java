package dev.stagecraft.planner.service.run.view;

import dev.stagecraft.planner.service.run.journal.RunEvent;
import java.util.List;

/**
 * One answer of {@code GET /api/v1/runs/{id}/events}: the run's journal entries after the one asked
 * for, its status, and whether it ended with nothing more to read ({@code terminal}).
 */
public record RunEventsPage(List<RunEvent> events, String status, boolean terminal) {}
