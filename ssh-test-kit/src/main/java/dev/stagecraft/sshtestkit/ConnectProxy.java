package dev.stagecraft.sshtestkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real proxy on a free loopback port, for tests of SSH connections through Terraform's {@code
 * proxy_*}: either an HTTP proxy that answers {@code CONNECT host:port} ({@link #http}) or a SOCKS5
 * proxy ({@link #socks5}, RFC 1928, CONNECT only). Once the tunnel is set up it relays bytes both
 * ways over real TCP, so the SSH session runs end to end through it.
 *
 * <p>With credentials ({@link #withCredentials}) it demands them (HTTP {@code Proxy-Authorization:
 * Basic}, SOCKS5 user name/password per RFC 1929) and refuses a client that sends none or wrong
 * ones (HTTP 407, SOCKS5 method 0xFF or authentication status 1): {@link #refused} counts those.
 * {@link #relayed} counts the tunnels it opened and {@link #targets} lists the {@code host:port}
 * each one asked for, as the client sent it (a name is resolved here, by the proxy).
 *
 * <p>Thread-safe; one virtual thread accepts, one per direction per tunnel pumps.
 */
public final class ConnectProxy implements AutoCloseable {
  /** The protocol a proxy speaks. */
  public enum Kind {
    HTTP,
    SOCKS5
  }

  private final Kind kind;
  private final String user;
  private final String password;
  private final ServerSocket listener;
  private final AtomicInteger relayed = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private final List<String> targets = Collections.synchronizedList(new ArrayList<>());
  private final List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());

  private ConnectProxy(Kind kind, String user, String password) throws IOException {
    this.kind = kind;
    this.user = user;
    this.password = password;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().name("connect-proxy-accept").start(this::acceptLoop);
  }

  /** An HTTP CONNECT proxy that asks for no credentials. */
  public static ConnectProxy http() throws IOException {
    return new ConnectProxy(Kind.HTTP, null, null);
  }

  /** A SOCKS5 proxy that asks for no credentials. */
  public static ConnectProxy socks5() throws IOException {
    return new ConnectProxy(Kind.SOCKS5, null, null);
  }

  /** A proxy of {@code kind} that accepts only {@code user} with {@code password}. */
  public static ConnectProxy withCredentials(Kind kind, String user, String password)
      throws IOException {
    return new ConnectProxy(kind, user, password);
  }

  public String host() {
    return listener.getInetAddress().getHostAddress();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Tunnels opened to a target since the proxy started. */
  public int relayed() {
    return relayed.get();
  }

  /** Clients turned away for missing or wrong credentials. */
  public int refused() {
    return refused.get();
  }

  /** The {@code host:port} of every tunnel asked for (relayed or not), in order. */
  public List<String> targets() {
    synchronized (targets) {
      return List.copyOf(targets);
    }
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        sockets.add(client);
        Thread.ofVirtual().name("connect-proxy-client").start(() -> serve(client));
      } catch (IOException e) {
        // the proxy was closed
      }
    }
  }

  private void serve(Socket client) {
    try {
      client.setSoTimeout(10_000);
      InputStream in = client.getInputStream();
      OutputStream out = client.getOutputStream();
      Socket upstream = kind == Kind.HTTP ? httpHandshake(in, out) : socksHandshake(in, out);
      if (upstream == null) {
        client.close();
        return;
      }
      client.setSoTimeout(0);
      relayed.incrementAndGet();
      Thread.ofVirtual().name("connect-proxy-up").start(() -> pump(client, upstream));
      pump(upstream, client);
    } catch (IOException e) {
      close(client);
    }
  }

  /** Reads the CONNECT request; answers and returns the upstream socket, or null when refused. */
  private Socket httpHandshake(InputStream in, OutputStream out) throws IOException {
    List<String> lines = readHeader(in);
    String[] request = lines.isEmpty() ? new String[0] : lines.get(0).split(" ");
    if (request.length != 3 || !request[0].equals("CONNECT")) {
      answer(out, "405 Method Not Allowed");
      return null;
    }
    targets.add(request[1]);
    if (user != null) {
      String expected =
          Base64.getEncoder()
              .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
      boolean ok =
          lines.stream()
              .skip(1)
              .filter(l -> l.toLowerCase(Locale.ROOT).startsWith("proxy-authorization:"))
              .map(l -> l.substring(l.indexOf(':') + 1).strip().split("\\s+"))
              .anyMatch(
                  v -> v.length == 2 && v[0].equalsIgnoreCase("basic") && v[1].equals(expected));
      if (!ok) {
        refused.incrementAndGet();
        answer(
            out, "407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"");
        return null;
      }
    }
    int colon = request[1].lastIndexOf(':');
    String host = request[1].substring(0, colon).replace("[", "").replace("]", "");
    Socket upstream = connect(host, Integer.parseInt(request[1].substring(colon + 1)));
    if (upstream == null) {
      answer(out, "502 Bad Gateway");
      return null;
    }
    answer(out, "200 Connection established");
    return upstream;
  }

  private static void answer(OutputStream out, String statusAndHeaders) throws IOException {
    out.write(
        ("HTTP/1.1 " + statusAndHeaders + "\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static List<String> readHeader(InputStream in) throws IOException {
    ByteArrayOutputStream header = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("client closed");
      }
      header.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return header.toString(StandardCharsets.ISO_8859_1).lines().toList();
  }

  /** RFC 1928 (+ RFC 1929); returns the upstream socket, or null when refused. */
  private Socket socksHandshake(InputStream in, OutputStream out) throws IOException {
    byte[] greeting = in.readNBytes(2);
    if (greeting.length < 2 || greeting[0] != 5) {
      return null;
    }
    byte[] methods = in.readNBytes(greeting[1] & 0xff);
    int wanted = user == null ? 0 : 2;
    boolean offered = false;
    for (byte m : methods) {
      offered |= (m & 0xff) == wanted;
    }
    if (!offered) {
      refused.incrementAndGet();
      out.write(new byte[] {5, (byte) 0xff});
      out.flush();
      return null;
    }
    out.write(new byte[] {5, (byte) wanted});
    out.flush();
    if (user != null) {
      in.readNBytes(1); // sub-negotiation version 1
      String name = new String(in.readNBytes(in.read()), StandardCharsets.UTF_8);
      String secret = new String(in.readNBytes(in.read()), StandardCharsets.UTF_8);
      boolean ok = name.equals(user) && secret.equals(password);
      out.write(new byte[] {1, (byte) (ok ? 0 : 1)});
      out.flush();
      if (!ok) {
        refused.incrementAndGet();
        return null;
      }
    }
    byte[] request = in.readNBytes(4);
    if (request.length < 4 || request[1] != 1) {
      out.write(new byte[] {5, 7, 0, 1, 0, 0, 0, 0, 0, 0}); // command not supported
      out.flush();
      return null;
    }
    String host =
        switch (request[3]) {
          case 1, 4 ->
              InetAddress.getByAddress(in.readNBytes(request[3] == 1 ? 4 : 16)).getHostAddress();
          case 3 -> new String(in.readNBytes(in.read()), StandardCharsets.US_ASCII);
          default -> throw new IOException("unknown address type");
        };
    byte[] portBytes = in.readNBytes(2);
    int port = ((portBytes[0] & 0xff) << 8) | (portBytes[1] & 0xff);
    targets.add((host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port);
    Socket upstream = connect(host, port);
    if (upstream == null) {
      out.write(new byte[] {5, 5, 0, 1, 0, 0, 0, 0, 0, 0}); // connection refused
      out.flush();
      return null;
    }
    out.write(new byte[] {5, 0, 0, 1, 127, 0, 0, 1, 0, 0});
    out.flush();
    return upstream;
  }

  private Socket connect(String host, int port) {
    Socket upstream = new Socket();
    try {
      upstream.connect(new InetSocketAddress(host, port), 5_000);
      sockets.add(upstream);
      return upstream;
    } catch (IOException e) {
      close(upstream);
      return null;
    }
  }

  private static void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed
    }
    close(from);
    close(to);
  }

  private static void close(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    synchronized (sockets) {
      sockets.forEach(ConnectProxy::close);
    }
  }
}
