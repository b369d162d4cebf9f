package dev.stagecraft.chaos.history;

import java.time.Instant;
import java.util.Objects;

/**
 * A tenant was shown some data: the workload reads back runs, states, plans, logs and events with
 * each tenant's own credentials and records what came back and whose it is.
 *
 * @param readerTenant the tenant whose credentials made the read
 * @param ownerTenant the tenant the returned data belongs to
 * @param resource what was read (e.g. {@code GET /api/v1/runs/r-17}, {@code run-events:r-17})
 * @param at when
 */
public record DataAccess(String readerTenant, String ownerTenant, String resource, Instant at) {

  public DataAccess {
    Objects.requireNonNull(readerTenant, "readerTenant");
    Objects.requireNonNull(ownerTenant, "ownerTenant");
    Objects.requireNonNull(resource, "resource");
  }
}
