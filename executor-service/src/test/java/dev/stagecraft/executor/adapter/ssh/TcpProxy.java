package dev.stagecraft.executor.adapter.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback TCP proxy in front of a real server, for fault tests: it forwards bytes both ways
 * until told to {@link #sever} the open connections (both sides see them close) or to {@link
 * #blackHole} them (the sockets stay open but nothing passes any more, like a peer that vanished
 * without a FIN). New connections accepted afterwards are forwarded normally.
 *
 * <p>Thread-safe; one virtual thread per direction per connection.
 */
public final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String targetHost;
  private final int targetPort;
  private final List<Link> links = new ArrayList<>(); // guarded by itself

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("tcp-proxy-accept").start(this::acceptLoop);
  }

  public String host() {
    return listener.getInetAddress().getHostAddress();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** How many connections it accepted so far. */
  public int accepted() {
    synchronized (links) {
      return links.size();
    }
  }

  /** Closes every connection open now (a reset or FIN for both sides). */
  public void sever() {
    for (Link link : snapshot()) {
      link.close();
    }
  }

  /** Stops forwarding on every connection open now, leaving the sockets open. */
  public void blackHole() {
    for (Link link : snapshot()) {
      link.dropping = true;
    }
  }

  private List<Link> snapshot() {
    synchronized (links) {
      return List.copyOf(links);
    }
  }

  private void acceptLoop() {
    try {
      while (true) {
        Socket client = listener.accept();
        Socket server;
        try {
          server = new Socket(targetHost, targetPort);
        } catch (IOException e) {
          client.close();
          continue;
        }
        Link link = new Link(client, server);
        synchronized (links) {
          links.add(link);
        }
        link.start();
      }
    } catch (IOException e) {
      // closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sever();
  }

  private static final class Link {
    final Socket client;
    final Socket server;
    volatile boolean dropping;

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void start() {
      Thread.ofVirtual().name("tcp-proxy-up").start(() -> pump(client, server));
      Thread.ofVirtual().name("tcp-proxy-down").start(() -> pump(server, client));
    }

    private void pump(Socket from, Socket to) {
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
        // one side closed
      }
      if (!dropping) {
        close();
      }
    }

    void close() {
      try {
        client.close();
      } catch (IOException e) {
        // already closed
      }
      try {
        server.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
