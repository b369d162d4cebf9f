package dev.stagecraft.executor.adapter.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

class NoDelaySocketFactoryTest {

  @Test
  void everySocketItMakesHasTcpNoDelay() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Socket unconnected = NoDelaySocketFactory.INSTANCE.createSocket();
        Socket byName =
            NoDelaySocketFactory.INSTANCE.createSocket("127.0.0.1", server.getLocalPort());
        Socket byAddress =
            NoDelaySocketFactory.INSTANCE.createSocket(
                InetAddress.getLoopbackAddress(), server.getLocalPort())) {
      assertThat(unconnected.getTcpNoDelay()).isTrue();
      assertThat(byName.getTcpNoDelay()).isTrue();
      assertThat(byAddress.getTcpNoDelay()).isTrue();
    }
  }
}
