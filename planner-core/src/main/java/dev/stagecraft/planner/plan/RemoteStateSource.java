package dev.stagecraft.planner.plan;

import dev.stagecraft.language.diag.SourceRange;

/**
 * One {@code data "terraform_remote_state"} block with its arguments evaluated before planning:
 * what the planner service must read (docs/planning.md "Remote state").
 *
 * @param address {@code data.terraform_remote_state.NAME}, the key of its {@link RemoteStateRead}
 * @param backend {@code stagecraft} or {@code http}
 * @param workspace for {@code stagecraft}: the workspace of the run's tenant to read; else null
 * @param httpAddress for {@code http}: the {@code config.address} given, which the planner service
 *     accepts only when it is this Stagecraft's own state address of a workspace (it never requests
 *     it); else null
 * @param range the data block, where a refused read is reported
 */
public record RemoteStateSource(
    String address, String backend, String workspace, String httpAddress, SourceRange range) {}
