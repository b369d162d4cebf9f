package dev.stagecraft.planner.service.source;

import java.util.List;

/**
 * The host keys a tenant trusts for an SSH git server: its known hosts (ADR 0012, {@code stagecraft
 * known-hosts add HOST[:PORT] KEY}). An SSH source's server must present one of them; an unknown
 * host is never trusted on first use (docs/workspaces.md).
 */
@FunctionalInterface
public interface KnownGitHosts {
  /**
   * The public keys (OpenSSH lines, {@code ssh-ed25519 AAAA…}) the tenant trusts for {@code
   * host:port}.
   *
   * @throws RuntimeException when they cannot be read (the fetch fails with the reason)
   */
  List<String> publicKeys(String tenant, String host, int port);

  /** No host is known. */
  KnownGitHosts NONE = (tenant, host, port) -> List.of();
}
