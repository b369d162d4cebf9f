package dev.stagecraft.planner.service.adapter.git;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The JVM's host-name resolver in the planner (registered as an {@link InetAddressResolverProvider}
 * service): the system's, except that a thread fetching from a tenant's repository gets, for that
 * repository's host, the addresses {@link JGitFetcher} checked against the allowed networks (ADR
 * 0082). So the transport connects to what the check approved, and a DNS server that answers the
 * check with a public address and the connection with a private one (rebinding) is not asked twice.
 * Lookups of every other host, and of that host on other threads, go to the system's resolver.
 *
 * <p>Concurrency: the pins are per thread (a {@link ThreadLocal}); the transport resolves on the
 * thread that fetches (JGit's http, {@code git://} and ssh transports connect on it).
 */
public final class PinnedAddresses extends InetAddressResolverProvider {
  private static final ThreadLocal<Map<String, List<InetAddress>>> PINS =
      ThreadLocal.withInitial(HashMap::new);

  /** Undoes a {@link #pin}. */
  public interface Pin extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Resolves {@code host} to {@code addresses} on this thread until the returned pin is closed;
   * each address is named {@code host} (as the system's resolver names what it finds), so what
   * checks the connected host by name (ssh known hosts) sees the repository's host.
   */
  public static Pin pin(String host, List<InetAddress> addresses) {
    String key = key(host);
    List<InetAddress> named = new ArrayList<>();
    for (InetAddress a : addresses) {
      try {
        named.add(InetAddress.getByAddress(key, a.getAddress()));
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("not an IP address: " + a, e);
      }
    }
    Map<String, List<InetAddress>> pins = PINS.get();
    List<InetAddress> before = pins.put(key, List.copyOf(named));
    return () -> {
      if (before == null) {
        pins.remove(key);
      } else {
        pins.put(key, before);
      }
    };
  }

  private static String key(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }

  @Override
  public InetAddressResolver get(Configuration configuration) {
    InetAddressResolver system = configuration.builtinResolver();
    return new InetAddressResolver() {
      @Override
      public Stream<InetAddress> lookupByName(String host, LookupPolicy policy)
          throws UnknownHostException {
        List<InetAddress> pinned = PINS.get().get(key(host));
        if (pinned == null) {
          return system.lookupByName(host, policy);
        }
        List<InetAddress> allowed = pinned.stream().filter(a -> admits(policy, a)).toList();
        if (allowed.isEmpty()) {
          throw new UnknownHostException(host + ": no checked address of the requested family");
        }
        return allowed.stream();
      }

      @Override
      public String lookupByAddress(byte[] address) throws UnknownHostException {
        return system.lookupByAddress(address);
      }
    };
  }

  private static boolean admits(InetAddressResolver.LookupPolicy policy, InetAddress address) {
    int c = policy.characteristics();
    return address instanceof Inet4Address
        ? (c & InetAddressResolver.LookupPolicy.IPV4) != 0
        : address instanceof Inet6Address && (c & InetAddressResolver.LookupPolicy.IPV6) != 0;
  }

  @Override
  public String name() {
    return "stagecraft-pinned-git-hosts";
  }
}
