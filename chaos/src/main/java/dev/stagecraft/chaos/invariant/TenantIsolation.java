package dev.stagecraft.chaos.invariant;

import dev.stagecraft.chaos.history.DataAccess;
import dev.stagecraft.chaos.history.History;
import java.util.Comparator;
import java.util.List;

/**
 * Tenants never see each other's data: every read the workload made with a tenant's credentials
 * returned only that tenant's data — else {@link ViolationKind#CROSS_TENANT_READ}.
 */
public final class TenantIsolation implements Invariant {

  @Override
  public String name() {
    return "tenant isolation";
  }

  @Override
  public List<Violation> check(History history) {
    return history.dataAccesses().stream()
        .filter(a -> !a.readerTenant().equals(a.ownerTenant()))
        .sorted(
            Comparator.comparing(DataAccess::readerTenant)
                .thenComparing(DataAccess::resource)
                .thenComparing(a -> a.at() == null ? "" : a.at().toString()))
        .map(
            a ->
                new Violation(
                    ViolationKind.CROSS_TENANT_READ,
                    "tenant "
                        + a.readerTenant()
                        + " was shown "
                        + a.ownerTenant()
                        + "'s data: "
                        + a.resource()
                        + " at "
                        + a.at(),
                    List.of(a.readerTenant(), a.ownerTenant(), a.resource()),
                    List.of(a)))
        .toList();
  }
}
