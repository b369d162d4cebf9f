package dev.stagecraft.chaos.soak;

import dev.stagecraft.sshtestkit.OpenSshServer;
import dev.stagecraft.sshtestkit.TcpProxy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The soak's cuttable connections: real OpenSSH sshd "hosts" ({@code ssh-1}, {@code ssh-2}), each
 * behind a {@link TcpProxy} that the workload's {@code remote-exec} steps connect through, and
 * proxies on HTTP paths between services (planner-2 to the state and lock services, the workload to
 * planner-1). A {@code sever} or {@code black-hole} fault hits every proxy of one group ({@code
 * ssh} or {@code http}) at once. Not thread-safe to build; {@link #cut} may be called from any
 * thread.
 */
final class SoakNetwork implements AutoCloseable {
  /** One SSH host: where the steps connect (the proxy), how they log in and its step journal. */
  record SshHost(
      String name,
      String host,
      int port,
      String user,
      String privateKey,
      String hostKey,
      Path journal) {

    /** Without the private key, which is only ever sent as a run's sensitive variable. */
    @Override
    public String toString() {
      return name + " " + user + "@" + host + ":" + port + " (journal " + journal + ")";
    }
  }

  private final List<OpenSshServer> servers = new ArrayList<>();
  private final List<TcpProxy> sshProxies = new ArrayList<>();
  private final List<TcpProxy> httpProxies = new ArrayList<>();
  private final List<SshHost> hosts = new ArrayList<>();

  /**
   * Starts {@code count} sshd, each behind a proxy; host {@code ssh-N}'s steps journal to {@code
   * <journals>/ssh-N.journal}.
   */
  void startSshHosts(int count, Path journals) throws Exception {
    Files.createDirectories(journals);
    for (int i = 1; i <= count; i++) {
      OpenSshServer sshd = new OpenSshServer();
      servers.add(sshd);
      sshd.start();
      TcpProxy proxy = new TcpProxy(sshd.host(), sshd.port());
      sshProxies.add(proxy);
      Path journal = journals.resolve("ssh-" + i + ".journal");
      Files.writeString(journal, "");
      hosts.add(
          new SshHost(
              "ssh-" + i,
              proxy.host(),
              proxy.port(),
              sshd.user(),
              sshd.ed25519Key(),
              sshd.hostKey(),
              journal));
    }
  }

  /** A proxy in front of {@code url} (http://host:port); returns the URL through the proxy. */
  String httpProxy(String url) throws IOException {
    URI uri = URI.create(url);
    TcpProxy proxy = new TcpProxy(uri.getHost(), uri.getPort());
    httpProxies.add(proxy);
    return "http://" + proxy.host() + ":" + proxy.port();
  }

  List<SshHost> sshHosts() {
    return List.copyOf(hosts);
  }

  /** Whether {@code group} ({@code ssh} or {@code http}) has proxies. */
  boolean has(String group) {
    return switch (group) {
      case "ssh" -> !sshProxies.isEmpty();
      case "http" -> !httpProxies.isEmpty();
      default -> false;
    };
  }

  /**
   * Severs or black-holes every connection open now through the proxies of {@code group}.
   *
   * @return how many connections were open
   * @throws NoSuchElementException for a group that is not {@code ssh} or {@code http}
   */
  int cut(String group, boolean blackHole) {
    List<TcpProxy> proxies =
        switch (group) {
          case "ssh" -> sshProxies;
          case "http" -> httpProxies;
          default -> throw new NoSuchElementException("no proxies \"" + group + "\"; ssh or http");
        };
    int open = 0;
    for (TcpProxy p : proxies) {
      open += p.open();
      if (blackHole) {
        p.blackHole();
      } else {
        p.sever();
      }
    }
    return open;
  }

  /** Closes the proxies and stops the sshd (their key files go with them). Idempotent. */
  @Override
  public void close() {
    for (TcpProxy p : sshProxies) {
      closeQuietly(p);
    }
    for (TcpProxy p : httpProxies) {
      closeQuietly(p);
    }
    for (OpenSshServer s : servers) {
      closeQuietly(s);
    }
    sshProxies.clear();
    httpProxies.clear();
    servers.clear();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // best effort at the end of a soak
    }
  }
}
