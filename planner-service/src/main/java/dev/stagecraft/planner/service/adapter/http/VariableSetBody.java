package dev.stagecraft.planner.service.adapter.http;

import io.micronaut.core.annotation.Nullable;

/**
 * The body that creates a variable set or changes it (docs/workspaces.md).
 *
 * @param name the set's name (creation; a change may only repeat it)
 * @param description what the set is for
 * @param global attached to every workspace of the tenant; default false
 */
public record VariableSetBody(
    @Nullable String name, @Nullable String description, @Nullable Boolean global) {}
