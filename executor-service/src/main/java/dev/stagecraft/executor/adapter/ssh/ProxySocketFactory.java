package dev.stagecraft.executor.adapter.ssh;

import dev.stagecraft.executor.step.RemoteConnector.PermanentConnectionException;
import dev.stagecraft.schemas.action.SshConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.net.SocketFactory;

/**
 * Sockets that reach their endpoint through a proxy, for the first hop of an SSH connection
 * (Terraform's {@code proxy_*}): {@code http} and {@code https} send an HTTP {@code CONNECT} over
 * plain TCP (Terraform speaks no TLS to the proxy for {@code https} either), {@code socks5} speaks
 * SOCKS5 (RFC 1928) with user name/password authentication (RFC 1929) when a user is set. The
 * endpoint's name is resolved by the proxy, never here. Java's own SOCKS support is not used: it
 * takes credentials from the process-wide {@link java.net.Authenticator}, which tenants would
 * share.
 *
 * <p>Rejected proxy credentials (HTTP 407, a SOCKS5 authentication failure or a proxy that accepts
 * none of the methods offered) are {@link PermanentConnectionException}s: retrying cannot fix them.
 * A proxy that cannot reach the endpoint (HTTP 502/503, SOCKS5 "connection refused") is a plain
 * {@link IOException}, retried like a refused connection. Messages name the proxy ({@code
 * scheme://host:port}) and user, never the password.
 */
final class ProxySocketFactory extends SocketFactory {
  /** How long the proxy may take to answer the handshake when the caller sets no timeout. */
  static final int DEFAULT_HANDSHAKE_MILLIS = 15_000;

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final int MAX_HEADER_BYTES = 16 * 1024;

  private final SshConnection.Proxy proxy;

  ProxySocketFactory(SshConnection.Proxy proxy) {
    this.proxy = proxy;
  }

  @Override
  public Socket createSocket() {
    return new ProxiedSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket socket = createSocket();
    socket.connect(InetSocketAddress.createUnresolved(host, port));
    return socket;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    throw new IOException("a proxied connection cannot choose its local address");
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return createSocket(host.getHostAddress(), port);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    throw new IOException("a proxied connection cannot choose its local address");
  }

  /** A socket whose {@link #connect(SocketAddress, int)} connects to the proxy and tunnels. */
  private final class ProxiedSocket extends Socket {
    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
      if (!(endpoint instanceof InetSocketAddress target)) {
        throw new IOException("unsupported address type " + endpoint);
      }
      try {
        super.connect(new InetSocketAddress(proxy.host(), proxy.port()), timeout);
      } catch (IOException e) {
        throw new IOException("cannot reach the proxy " + proxy.where() + ": " + e.getMessage(), e);
      }
      setTcpNoDelay(true);
      int before = getSoTimeout();
      setSoTimeout(timeout > 0 ? timeout : DEFAULT_HANDSHAKE_MILLIS);
      try {
        if (proxy.scheme().equals(SshConnection.Proxy.SOCKS5)) {
          socks5(target.getHostString(), target.getPort());
        } else {
          httpConnect(target.getHostString(), target.getPort());
        }
      } catch (IOException e) {
        close();
        throw e;
      }
      setSoTimeout(before);
    }

    // -------------------------------------------------------------- HTTP CONNECT

    private void httpConnect(String host, int port) throws IOException {
      String authority = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
      StringBuilder request =
          new StringBuilder("CONNECT ")
              .append(authority)
              .append(" HTTP/1.1\r\nHost: ")
              .append(authority)
              .append("\r\nUser-Agent: Stagecraft\r\n");
      if (proxy.user() != null) {
        String pair = proxy.user() + ":" + (proxy.password() == null ? "" : proxy.password());
        request
            .append("Proxy-Authorization: Basic ")
            .append(Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)))
            .append("\r\n");
      }
      request.append("\r\n");
      OutputStream out = getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      String status = readHeader(getInputStream()).lines().findFirst().orElse("");
      String[] parts = status.split(" ", 3);
      int code;
      try {
        code = parts.length >= 2 && parts[0].startsWith("HTTP/") ? Integer.parseInt(parts[1]) : -1;
      } catch (NumberFormatException e) {
        code = -1;
      }
      if (code == 200) {
        return;
      }
      String answer = "the proxy " + proxy.where() + " answered \"" + status.strip() + "\"";
      if (code == 407) {
        throw new PermanentConnectionException(
            answer
                + (proxy.user() == null
                    ? " to a CONNECT without credentials: set proxy_user_name and"
                        + " proxy_user_password"
                    : " for user " + proxy.user() + ": check proxy_user_name/proxy_user_password")
                + "; not retried");
      }
      if (code < 0) {
        throw new IOException(
            "the proxy " + proxy.where() + " did not answer the CONNECT as an HTTP proxy");
      }
      throw new IOException(answer + " to CONNECT " + authority);
    }

    /** The response header, up to and without the blank line; byte by byte: nothing past it. */
    private String readHeader(InputStream in) throws IOException {
      ByteArrayOutputStream header = new ByteArrayOutputStream();
      int matched = 0; // of "\r\n\r\n"
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("the proxy " + proxy.where() + " closed the connection");
        }
        header.write(b);
        if (header.size() > MAX_HEADER_BYTES) {
          throw new IOException("the proxy " + proxy.where() + " sent an oversized answer");
        }
        matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
      }
      return header.toString(StandardCharsets.ISO_8859_1);
    }

    // -------------------------------------------------------------- SOCKS5

    private void socks5(String host, int port) throws IOException {
      InputStream in = getInputStream();
      OutputStream out = getOutputStream();
      boolean withCredentials = proxy.user() != null;
      // greeting: version 5, the methods offered (0 = none, 2 = user name/password)
      out.write(withCredentials ? new byte[] {5, 2, 0, 2} : new byte[] {5, 1, 0});
      out.flush();
      byte[] choice = readFully(in, 2);
      if (choice[0] != 5) {
        throw new IOException("the proxy " + proxy.where() + " does not speak SOCKS5");
      }
      int method = choice[1] & 0xff;
      if (method == 2 && withCredentials) {
        authenticate(in, out);
      } else if (method != 0) {
        throw new PermanentConnectionException(
            "the SOCKS5 proxy "
                + proxy.where()
                + " accepts none of the authentication methods offered ("
                + (withCredentials ? "none, user name/password" : "none")
                + ")"
                + (withCredentials ? "" : ": set proxy_user_name and proxy_user_password")
                + "; not retried");
      }
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.write(new byte[] {5, 1, 0}); // CONNECT
      if (IPV4.matcher(host).matches() || host.indexOf(':') >= 0) {
        byte[] address = InetAddress.getByName(host).getAddress(); // a literal: no lookup
        request.write(address.length == 4 ? 1 : 4);
        request.write(address);
      } else {
        byte[] name = host.getBytes(StandardCharsets.US_ASCII);
        if (name.length > 255) {
          throw new PermanentConnectionException("host name too long for SOCKS5: " + host);
        }
        request.write(3);
        request.write(name.length);
        request.write(name);
      }
      request.write(port >> 8);
      request.write(port & 0xff);
      out.write(request.toByteArray());
      out.flush();
      byte[] reply = readFully(in, 4);
      if (reply[1] != 0) {
        throw new IOException(
            "the SOCKS5 proxy "
                + proxy.where()
                + " could not connect to "
                + host
                + ":"
                + port
                + ": "
                + socksReply(reply[1] & 0xff));
      }
      // skip the bound address the proxy reports
      int length =
          switch (reply[3]) {
            case 1 -> 4;
            case 4 -> 16;
            case 3 -> readFully(in, 1)[0] & 0xff;
            default ->
                throw new IOException(
                    "the SOCKS5 proxy " + proxy.where() + " sent an unknown address type");
          };
      readFully(in, length + 2);
    }

    /** RFC 1929: version 1, user name, password; status 0 is success. */
    private void authenticate(InputStream in, OutputStream out) throws IOException {
      byte[] user = proxy.user().getBytes(StandardCharsets.UTF_8);
      byte[] password =
          (proxy.password() == null ? "" : proxy.password()).getBytes(StandardCharsets.UTF_8);
      if (user.length > 255 || password.length > 255) {
        throw new PermanentConnectionException(
            "SOCKS5 user names and passwords are at most 255 bytes");
      }
      ByteArrayOutputStream message = new ByteArrayOutputStream();
      message.write(1);
      message.write(user.length);
      message.write(user);
      message.write(password.length);
      message.write(password);
      out.write(message.toByteArray());
      out.flush();
      byte[] status = readFully(in, 2);
      if (status[1] != 0) {
        throw new PermanentConnectionException(
            "the SOCKS5 proxy "
                + proxy.where()
                + " rejected user "
                + proxy.user()
                + ": check proxy_user_name/proxy_user_password; not retried");
      }
    }

    private byte[] readFully(InputStream in, int n) throws IOException {
      byte[] bytes = in.readNBytes(n);
      if (bytes.length < n) {
        throw new IOException("the proxy " + proxy.where() + " closed the connection");
      }
      return bytes;
    }
  }

  private static String socksReply(int code) {
    return switch (code) {
      case 1 -> "general failure";
      case 2 -> "not allowed by its rules";
      case 3 -> "network unreachable";
      case 4 -> "host unreachable";
      case 5 -> "connection refused";
      case 6 -> "TTL expired";
      case 7 -> "command not supported";
      case 8 -> "address type not supported";
      default -> "reply " + code;
    };
  }
}
