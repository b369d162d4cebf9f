package dev.stagecraft.state.application;

import dev.stagecraft.state.history.WorkspaceState;
import dev.stagecraft.state.hostkey.HostKey;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of {@link RunOpenings#open}: {@code newerToken} is present (and nothing was written)
 * when the workspace already saw a newer fencing token. Otherwise the token is the workspace's
 * newest, {@code credentialIssued} says whether the run's credential was stored (false: the run
 * already ended, its credential revoked), and then {@code state} and {@code hostKeys} are what the
 * run works from (null and empty when it was not).
 */
public record RunOpening(
    Optional<Long> newerToken,
    boolean credentialIssued,
    WorkspaceState state,
    List<HostKey> hostKeys) {}
