package dev.stagecraft.executor.adapter.ssh;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Plain sockets with {@code TCP_NODELAY}, for sshj's clients. Without it every channel open, exec
 * request and close waits for Nagle's algorithm and the peer's delayed ACK: measured on loopback, a
 * {@code true} command on an open connection took ~60 ms instead of ~5 ms (docs/benchmarks.md).
 * OpenSSH's client sets the same option.
 */
final class NoDelaySocketFactory extends SocketFactory {
  static final NoDelaySocketFactory INSTANCE = new NoDelaySocketFactory();

  private NoDelaySocketFactory() {}

  @Override
  public Socket createSocket() throws IOException {
    Socket socket = new Socket();
    socket.setTcpNoDelay(true);
    return socket;
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket socket = new Socket(host, port);
    socket.setTcpNoDelay(true);
    return socket;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    Socket socket = new Socket(host, port, localHost, localPort);
    socket.setTcpNoDelay(true);
    return socket;
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    Socket socket = new Socket(host, port);
    socket.setTcpNoDelay(true);
    return socket;
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    Socket socket = new Socket(address, port, localAddress, localPort);
    socket.setTcpNoDelay(true);
    return socket;
  }
}
