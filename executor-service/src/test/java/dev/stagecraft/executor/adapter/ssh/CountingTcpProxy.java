package dev.stagecraft.executor.adapter.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of a server that counts the connections it accepted, knows how many
 * are open and can sever them all (as a network failure or a killed peer would). Bytes pass
 * unchanged, so the SSH session runs end to end between the client and the real server.
 */
public final class CountingTcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final AtomicInteger accepted = new AtomicInteger();
  private final Set<Link> open = ConcurrentHashMap.newKeySet();

  public CountingTcpProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("proxy-accept").start(this::acceptLoop);
  }

  public int port() {
    return server.getLocalPort();
  }

  /** TCP connections accepted since the proxy started. */
  public int accepted() {
    return accepted.get();
  }

  /** TCP connections open now (neither side has closed). */
  public int open() {
    return open.size();
  }

  /** Closes every open connection on both sides. */
  public void severAll() {
    open.forEach(Link::close);
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        accepted.incrementAndGet();
        Socket upstream = new Socket();
        upstream.connect(target, 5_000);
        Link link = new Link(client, upstream);
        open.add(link);
        Thread.ofVirtual().start(() -> link.pump(client, upstream));
        Thread.ofVirtual().start(() -> link.pump(upstream, client));
      } catch (IOException e) {
        // the proxy was closed, or the target refused: the client sees its connection closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    severAll();
  }

  private final class Link {
    private final Socket a;
    private final Socket b;

    Link(Socket a, Socket b) {
      this.a = a;
      this.b = b;
    }

    void pump(Socket from, Socket to) {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream()) {
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one side closed or was severed
      }
      close();
    }

    void close() {
      try {
        a.close();
      } catch (IOException e) {
        // already closed
      }
      try {
        b.close();
      } catch (IOException e) {
        // already closed
      }
      open.remove(this);
    }
  }
}
