package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The network cut of the fault matrix: what passes through a {@link TcpProxy}, cut and healed, to an echo server. */
class TcpProxyTest {
  private ServerSocket echo;
  private TcpProxy proxy;

  @BeforeEach
  void start() throws Exception {
    echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> {
      while (!echo.isClosed()) {
        try {
          Socket s = echo.accept();
          Thread e = new Thread(() -> {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
              in.transferTo(out);
            } catch (Exception ended) {
              // The test closed it.
            }
          });
          e.setDaemon(true);
          e.start();
        } catch (Exception closed) {
          return;
        }
      }
    });
    t.setDaemon(true);
    t.start();
    proxy = new TcpProxy(0, new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort()));
  }

  @AfterEach
  void stop() throws Exception {
    proxy.close();
    echo.close();
  }

  @Test
  void whatIsSentDuringACutArrivesOnlyAfterItHeals() throws Exception {
    try (Socket before = connect()) {
      assertArrayEquals(bytes("one"), roundTrip(before, "one"));
      proxy.cut();
      before.getOutputStream().write(bytes("two"));
      assertThrows(SocketTimeoutException.class, () -> before.getInputStream().read());
      // A connection made during the cut is accepted, as a handshake's first packet would leave, and held too.
      try (Socket during = connect()) {
        during.getOutputStream().write(bytes("three"));
        assertThrows(SocketTimeoutException.class, () -> during.getInputStream().read());
        proxy.heal();
        assertArrayEquals(bytes("two"), before.getInputStream().readNBytes(3));
        assertArrayEquals(bytes("three"), during.getInputStream().readNBytes(5));
      }
      assertArrayEquals(bytes("four"), roundTrip(before, "four"));
    }
  }

  @Test
  void aServerThatRefusesClosesTheClientsConnection() throws Exception {
    echo.close();
    try (Socket s = connect()) {
      assertEquals(-1, s.getInputStream().read());
    }
  }

  private Socket connect() throws Exception {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    s.setSoTimeout(700);
    return s;
  }

  private static byte[] roundTrip(Socket s, String text) throws Exception {
    s.getOutputStream().write(bytes(text));
    return s.getInputStream().readNBytes(text.length());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
