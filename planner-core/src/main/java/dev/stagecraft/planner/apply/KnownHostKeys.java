package dev.stagecraft.planner.apply;

import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The host keys a run must enforce, by {@code host:port}: the tenant's known hosts and the keys
 * trusted on first use in the run's workspace, as the state service has them when the run starts.
 * {@link #attachTo} puts the matching ones on every connection and bastion of the dispatched steps
 * ({@code knownHostKeys}), where the executor enforces them (ADR "Host key trust").
 *
 * <p>Keys are lines {@code <type> <base64> <origin>}; the origin (e.g. {@code first use in
 * workspace prod}) is shown in the executor's mismatch error. Host names match case-insensitively;
 * a connection without a port means 22. Immutable value, safe to share between threads.
 */
public final class KnownHostKeys {
  public static final int DEFAULT_PORT = 22;

  /** No keys known: every host is trusted on first use (unless its key is pinned). */
  public static final KnownHostKeys NONE = new KnownHostKeys(Map.of());

  private final Map<String, List<String>> byHostPort;

  private KnownHostKeys(Map<String, List<String>> byHostPort) {
    this.byHostPort = byHostPort;
  }

  /** Collects keys with {@link Builder#add}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Accumulates keys; not thread-safe. */
  public static final class Builder {
    private final Map<String, List<String>> keys = new LinkedHashMap<>();

    private Builder() {}

    /**
     * @param port 0 or negative means {@value #DEFAULT_PORT}
     * @param keyLine {@code <type> <base64> [origin]}
     */
    public Builder add(String host, int port, String keyLine) {
      keys.computeIfAbsent(key(host, port), k -> new ArrayList<>()).add(keyLine);
      return this;
    }

    public KnownHostKeys build() {
      Map<String, List<String>> copy = new LinkedHashMap<>();
      keys.forEach((k, v) -> copy.put(k, List.copyOf(v)));
      return new KnownHostKeys(Map.copyOf(copy));
    }
  }

  /** The keys known for {@code host:port}; empty when none. */
  public List<String> forHost(String host, int port) {
    return host == null ? List.of() : byHostPort.getOrDefault(key(host, port), List.of());
  }

  public boolean isEmpty() {
    return byHostPort.isEmpty();
  }

  /**
   * The steps with the matching known keys on each connection and bastion; a step without a
   * connection, or a connection none match, is returned as it was.
   */
  public List<ProvisionerStep> attachTo(List<ProvisionerStep> steps) {
    if (byHostPort.isEmpty()) {
      return steps;
    }
    List<ProvisionerStep> out = new ArrayList<>(steps.size());
    for (ProvisionerStep step : steps) {
      SshConnection connection = step.connection();
      out.add(connection == null ? step : step.withConnection(attachTo(connection)));
    }
    return List.copyOf(out);
  }

  private SshConnection attachTo(SshConnection connection) {
    List<SshConnection.Bastion> hops = new ArrayList<>();
    for (SshConnection.Bastion hop : connection.bastions()) {
      List<String> known = forHost(hop.host(), hop.port());
      hops.add(known.isEmpty() ? hop : hop.withKnownHostKeys(known));
    }
    SshConnection withHops = connection.withBastions(hops);
    List<String> known = forHost(connection.host(), connection.port());
    return known.isEmpty() ? withHops : withHops.withKnownHostKeys(known);
  }

  private static String key(String host, int port) {
    return host.trim().toLowerCase(Locale.ROOT) + ":" + (port > 0 ? port : DEFAULT_PORT);
  }
}
