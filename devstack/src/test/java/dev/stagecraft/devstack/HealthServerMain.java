package dev.stagecraft.devstack;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A stand-in for a service process in {@link ServiceRestartsTest}: answers {@code GET /health} with
 * 200 on the port given as its argument until it is killed.
 */
public final class HealthServerMain {
  private HealthServerMain() {}

  public static void main(String[] args) throws Exception {
    HttpServer server =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0])), 0);
    server.createContext(
        "/health",
        exchange -> {
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
  }
}
