package dev.stagecraft.language.eval.functions;

import static dev.stagecraft.language.eval.functions.Args.integer;
import static dev.stagecraft.language.eval.functions.Args.num;
import static dev.stagecraft.language.eval.functions.Args.str;

import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.language.eval.FunctionDef;
import dev.stagecraft.language.eval.FunctionException;
import dev.stagecraft.language.eval.Functions;
import dev.stagecraft.language.eval.Value;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/** Terraform's IP network functions (IPv4 and IPv6, RFC 5952 output). */
final class IpNetworkFunctions {
  private IpNetworkFunctions() {}

  static Functions register(Functions f) {
    return f.with(FunctionDef.of("cidrhost", 2, 2, IpNetworkFunctions::cidrhost))
        .with(FunctionDef.of("cidrnetmask", 1, 1, IpNetworkFunctions::cidrnetmask))
        .with(FunctionDef.of("cidrsubnet", 3, 3, IpNetworkFunctions::cidrsubnet))
        .with(FunctionDef.of("cidrsubnets", 1, -1, IpNetworkFunctions::cidrsubnets));
  }

  /** An IPv4 or IPv6 prefix: {@code bits} is 32 or 128. */
  private record Cidr(BigInteger ip, int prefix, int bits) {
    BigInteger hostMask() {
      return BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE);
    }

    BigInteger network() {
      return ip.andNot(hostMask());
    }

    String format(BigInteger addr) {
      return bits == 32 ? ipv4(addr) : ipv6(addr);
    }
  }

  private static Cidr cidr(List<Value> a, int i) {
    String s = str(a, i);
    int slash = s.indexOf('/');
    if (slash < 0) {
      throw new FunctionException(
          i, "invalid CIDR address \"" + s + "\"; expected e.g. 10.0.0.0/16.");
    }
    String host = s.substring(0, slash);
    int prefix;
    try {
      prefix = Integer.parseInt(s.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new FunctionException(i, "invalid prefix length in \"" + s + "\".");
    }
    BigInteger ip;
    int bits;
    if (host.contains(":")) {
      ip = parseIpv6(host, i);
      bits = 128;
    } else {
      ip = parseIpv4(host, i);
      bits = 32;
    }
    if (prefix < 0 || prefix > bits) {
      throw new FunctionException(i, "invalid prefix length in \"" + s + "\".");
    }
    return new Cidr(ip, prefix, bits);
  }

  private static BigInteger parseIpv4(String s, int argIndex) {
    String[] p = s.split("\\.", -1);
    if (p.length != 4) {
      throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
    }
    long v = 0;
    for (String part : p) {
      if (!part.matches("\\d{1,3}")
          || Integer.parseInt(part) > 255
          || (part.length() > 1 && part.startsWith("0"))) {
        throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
      }
      v = v << 8 | Integer.parseInt(part);
    }
    return BigInteger.valueOf(v);
  }

  private static BigInteger parseIpv6(String s, int argIndex) {
    if (!s.matches("[0-9a-fA-F:.]+")) {
      throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
    }
    try {
      byte[] b = InetAddress.getByName(s).getAddress();
      if (b.length != 16) {
        throw new FunctionException(argIndex, "invalid IPv6 address \"" + s + "\".");
      }
      return new BigInteger(1, b);
    } catch (UnknownHostException e) {
      throw new FunctionException(argIndex, "invalid IP address \"" + s + "\".");
    }
  }

  private static String ipv4(BigInteger v) {
    long x = v.longValue();
    return (x >> 24 & 255) + "." + (x >> 16 & 255) + "." + (x >> 8 & 255) + "." + (x & 255);
  }

  /** RFC 5952 text form, as Go prints IPv6 addresses. */
  private static String ipv6(BigInteger v) {
    int[] g = new int[8];
    for (int i = 0; i < 8; i++) {
      g[i] = v.shiftRight(16 * (7 - i)).intValue() & 0xffff;
    }
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      if (g[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(g[i]));
    }
    return sb.toString();
  }

  private static Value cidrhost(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    BigInteger host = num(a, 1).toBigInteger();
    BigInteger size = n.hostMask().add(BigInteger.ONE);
    if (host.signum() < 0) {
      host = size.add(host);
    }
    if (host.signum() < 0 || host.compareTo(size) >= 0) {
      throw new FunctionException(
          1,
          "prefix of "
              + n.prefix()
              + " does not accommodate a host numbered "
              + num(a, 1).toPlainString()
              + ".");
    }
    return Value.string(n.format(n.network().add(host)));
  }

  private static Value cidrnetmask(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    if (n.bits() != 32) {
      throw new FunctionException(0, "cidrnetmask only supports IPv4 prefixes.");
    }
    return Value.string(
        ipv4(n.hostMask().xor(BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE))));
  }

  private static Value cidrsubnet(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    int newbits = integer(a, 1);
    BigInteger netnum = num(a, 2).toBigInteger();
    int len = n.prefix() + newbits;
    if (newbits < 0 || len > n.bits()) {
      throw new FunctionException(
          1,
          "insufficient address space to extend prefix of " + n.prefix() + " by " + newbits + ".");
    }
    if (netnum.signum() < 0 || netnum.bitLength() > newbits) {
      throw new FunctionException(
          2,
          "prefix extension of "
              + newbits
              + " does not accommodate a subnet numbered "
              + netnum
              + ".");
    }
    BigInteger ip = n.network().or(netnum.shiftLeft(n.bits() - len));
    return Value.string(n.format(ip) + "/" + len);
  }

  private static Value cidrsubnets(List<Value> a, EvalContext c) {
    Cidr n = cidr(a, 0);
    if (a.size() == 1) {
      return Value.list(List.of());
    }
    BigInteger base = n.network();
    BigInteger all = BigInteger.ONE.shiftLeft(n.bits()).subtract(BigInteger.ONE);
    int firstLen = n.prefix() + integer(a, 1);
    if (integer(a, 1) < 1 || firstLen > n.bits()) {
      throw new FunctionException(
          1,
          "would extend prefix to "
              + firstLen
              + " bits, which is too long for an IPv"
              + (n.bits() == 32 ? 4 : 6)
              + " address.");
    }
    // the subnet just before the first one, so that "next" yields the first
    BigInteger curIp = base.subtract(BigInteger.ONE).and(all);
    int curLen = firstLen;
    curIp = curIp.andNot(hostMask(n.bits(), curLen));
    List<Value> out = new ArrayList<>();
    for (int i = 1; i < a.size(); i++) {
      int newbits = integer(a, i);
      int len = n.prefix() + newbits;
      if (newbits < 1 || len > n.bits()) {
        throw new FunctionException(
            i,
            "would extend prefix to "
                + len
                + " bits, which is too long for an IPv"
                + (n.bits() == 32 ? 4 : 6)
                + " address.");
      }
      BigInteger lastOfCur = curIp.or(hostMask(n.bits(), curLen));
      BigInteger sub = lastOfCur.andNot(hostMask(n.bits(), len));
      BigInteger next = sub.or(hostMask(n.bits(), len)).add(BigInteger.ONE);
      if (next.compareTo(all) > 0 || !next.andNot(n.hostMask()).equals(base)) {
        throw new FunctionException(
            i,
            "not enough remaining address space for a subnet with a prefix of "
                + len
                + " bits after "
                + n.format(curIp)
                + "/"
                + curLen
                + ".");
      }
      curIp = next;
      curLen = len;
      out.add(Value.string(n.format(curIp) + "/" + curLen));
    }
    return Value.list(out);
  }

  private static BigInteger hostMask(int bits, int prefix) {
    return BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE);
  }
}
