package dev.stagecraft.sshtestkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of a real server, for connection-reuse and fault tests. Bytes pass
 * unchanged, so an SSH session runs end to end between the client and the real server. It counts
 * the connections it {@link #accepted} and knows how many are {@link #open}; it can {@link #sever}
 * the open ones (both sides see them close, as after a network failure or a killed peer) or {@link
 * #blackHole} them (the sockets stay open but nothing passes any more, like a peer that vanished
 * without a FIN). Connections accepted afterwards are forwarded normally.
 *
 * <p>Thread-safe; one virtual thread accepts, one per direction per connection pumps.
 */
public final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final AtomicInteger accepted = new AtomicInteger();
  private final Set<Link> open = ConcurrentHashMap.newKeySet();

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("tcp-proxy-accept").start(this::acceptLoop);
  }

  public String host() {
    return listener.getInetAddress().getHostAddress();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** TCP connections accepted since the proxy started. */
  public int accepted() {
    return accepted.get();
  }

  /** TCP connections open now (neither side has closed, or black-holed ones). */
  public int open() {
    return open.size();
  }

  /** Closes every connection open now on both sides. */
  public void sever() {
    List.copyOf(open).forEach(Link::close);
  }

  /** Stops forwarding on every connection open now, leaving the sockets open. */
  public void blackHole() {
    List.copyOf(open).forEach(link -> link.dropping = true);
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        accepted.incrementAndGet();
        Socket upstream = new Socket();
        try {
          upstream.connect(target, 5_000);
        } catch (IOException e) {
          client.close(); // the target refused: the client sees its connection closed
          continue;
        }
        Link link = new Link(client, upstream);
        open.add(link);
        Thread.ofVirtual().name("tcp-proxy-up").start(() -> link.pump(client, upstream));
        Thread.ofVirtual().name("tcp-proxy-down").start(() -> link.pump(upstream, client));
      } catch (IOException e) {
        // the proxy was closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sever();
  }

  private final class Link {
    private final Socket a;
    private final Socket b;
    volatile boolean dropping;

    Link(Socket a, Socket b) {
      this.a = a;
      this.b = b;
    }

    void pump(Socket from, Socket to) {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (!dropping) {
            out.write(buffer, 0, n);
            out.flush();
          }
        }
      } catch (IOException e) {
        // one side closed or was severed
      }
      if (!dropping) {
        close();
      }
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
