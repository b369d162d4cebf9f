package dev.stagecraft.planner.service.source;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which addresses the planner may fetch a tenant's git repository from. A tenant names the
 * repository, so without a rule it could point the planner at the platform's own network: its
 * internal APIs, the database, a cloud's metadata service. By default only public addresses are
 * allowed; loopback, link-local (169.254.0.0/16 holds the metadata services), private (10/8,
 * 172.16/12, 192.168/16, fc00::/7), shared (100.64/10), unspecified and multicast addresses are
 * refused unless the operator allows their network ({@code
 * STAGECRAFT_PLANNER_GIT_ALLOWED_NETWORKS}, a comma-separated list of CIDR blocks, e.g. {@code
 * 10.20.0.0/16} for the company's git server). Every address a host resolves to must be allowed.
 * Immutable; thread-safe.
 *
 * @param allowed the networks allowed besides public addresses
 */
public record GitAddresses(List<Network> allowed) {
  /** The setting that names the allowed networks. */
  public static final String SETTING = "STAGECRAFT_PLANNER_GIT_ALLOWED_NETWORKS";

  private static final Pattern IP_LITERAL = Pattern.compile("[0-9A-Fa-f:.]+");

  /** Public addresses only. */
  public static final GitAddresses PUBLIC_ONLY = new GitAddresses(List.of());

  public GitAddresses {
    allowed = List.copyOf(allowed);
  }

  /** One CIDR block: an address and how many leading bits of it count. */
  public static final class Network {
    private final byte[] address;
    private final int prefix;
    private final String text;

    Network(byte[] address, int prefix, String text) {
      this.address = address.clone();
      this.prefix = prefix;
      this.text = text;
    }

    boolean contains(InetAddress a) {
      byte[] b = a.getAddress();
      if (b.length != address.length) {
        return false;
      }
      for (int bit = 0; bit < prefix; bit++) {
        int mask = 0x80 >>> (bit % 8);
        if ((b[bit / 8] & mask) != (address[bit / 8] & mask)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /**
   * Parses the setting's value (blank: public addresses only).
   *
   * @throws IllegalArgumentException naming the setting and the bad entry
   */
  public static GitAddresses parse(String setting) {
    if (setting == null || setting.isBlank()) {
      return PUBLIC_ONLY;
    }
    List<Network> networks = new ArrayList<>();
    for (String entry : setting.split(",", -1)) {
      networks.add(network(entry.strip()));
    }
    return new GitAddresses(networks);
  }

  private static Network network(String entry) {
    int slash = entry.indexOf('/');
    String ip = slash < 0 ? entry : entry.substring(0, slash);
    InetAddress address = literal(ip, entry);
    int bits = address.getAddress().length * 8;
    int prefix = bits;
    if (slash >= 0) {
      try {
        prefix = Integer.parseInt(entry.substring(slash + 1));
      } catch (NumberFormatException e) {
        prefix = -1;
      }
      if (prefix < 0 || prefix > bits) {
        throw bad(entry, "the prefix length after '/' must be 0 to " + bits);
      }
    }
    return new Network(address.getAddress(), prefix, entry);
  }

  private static InetAddress literal(String ip, String entry) {
    if (ip.isEmpty() || !IP_LITERAL.matcher(ip).matches()) {
      throw bad(entry, "give an IP address and a prefix length, e.g. 10.20.0.0/16 or fd00::/8");
    }
    try {
      return InetAddress.getByName(ip); // a literal: no name lookup
    } catch (UnknownHostException e) {
      throw bad(entry, "'" + ip + "' is not an IP address");
    }
  }

  private static IllegalArgumentException bad(String entry, String why) {
    return new IllegalArgumentException(
        SETTING
            + " holds '"
            + entry
            + "', which is not a network: "
            + why
            + " (a comma-separated list of CIDR blocks; empty allows public addresses only)");
  }

  /**
   * Why the planner may not fetch from {@code host}, which resolved to {@code addresses}; empty
   * when every address is public or in an allowed network.
   */
  public Optional<String> refusal(String host, List<InetAddress> addresses) {
    for (InetAddress a : addresses) {
      Optional<String> kind = nonPublicKind(a);
      if (kind.isPresent() && allowed.stream().noneMatch(n -> n.contains(a))) {
        return Optional.of(
            "repository host '"
                + host
                + "' resolves to "
                + a.getHostAddress()
                + ", "
                + kind.get()
                + ": the planner fetches only from public addresses unless the operator allows"
                + " the network ("
                + SETTING
                + ")");
      }
    }
    return Optional.empty();
  }

  /** What kind of non-public address {@code a} is; empty for a public one. */
  static Optional<String> nonPublicKind(InetAddress a) {
    if (a.isLoopbackAddress()) {
      return Optional.of("a loopback address");
    }
    if (a.isAnyLocalAddress()) {
      return Optional.of("the unspecified address");
    }
    if (a.isLinkLocalAddress()) {
      return Optional.of("a link-local address (where cloud metadata services answer)");
    }
    if (a.isMulticastAddress()) {
      return Optional.of("a multicast address");
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      if (a.isSiteLocalAddress()) {
        return Optional.of("a private address");
      }
      if (first == 100 && second >= 64 && second < 128) {
        return Optional.of("a shared (carrier-grade NAT) address");
      }
      if (first == 0) {
        return Optional.of("an address of 'this network' (0.0.0.0/8)");
      }
    }
    if (a instanceof Inet6Address && ((b[0] & 0xfe) == 0xfc || a.isSiteLocalAddress())) {
      return Optional.of("a private (unique local) address");
    }
    return Optional.empty();
  }
}
