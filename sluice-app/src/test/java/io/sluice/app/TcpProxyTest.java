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
  /** How long a read waits where the proxy must hold the bytes: long enough to tell a held byte. */
  private static final int HELD_MILLIS = 700;
  /** How long a read waits for bytes (or a close) that are due, however long a loaded machine takes to pass them on. */
  private static final int DUE_MILLIS = 30_000;

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
        assertArrayEquals(bytes("two"), receive(before, 3));
        assertArrayEquals(bytes("three"), receive(during, 5));
      }
      assertArrayEquals(bytes("four"), roundTrip(before, "four"));
    }
  }

  @Test
  void aServerThatRefusesClosesTheClientsConnection() throws Exception {
    // A port held by a socket that is bound but never listens refuses every connection. A closed server's port would
    // not do: another listener may take it meanwhile, or the proxy's own connect may be given it as its local port and
    // connect to itself, and then nothing ever closes.
    try (Socket refusing = new Socket()) {
      refusing.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (TcpProxy toRefusing = new TcpProxy(0, (InetSocketAddress) refusing.getLocalSocketAddress());
          Socket s = new Socket(InetAddress.getLoopbackAddress(), toRefusing.port())) {
        // The close is awaited, not its absence: a loaded machine may take seconds to run the proxy's threads.
        s.setSoTimeout(DUE_MILLIS);
        assertEquals(-1, s.getInputStream().read());
      }
    }
  }

  /** A connection through the proxy whose reads give up after {@link #HELD_MILLIS}. */
  private Socket connect() throws Exception {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    s.setSoTimeout(HELD_MILLIS);
    return s;
  }

  private static byte[] roundTrip(Socket s, String text) throws Exception {
    s.getOutputStream().write(bytes(text));
    return receive(s, text.length());
  }

  /** {@code n} bytes that are due, waited for up to {@link #DUE_MILLIS}. */
  private static byte[] receive(Socket s, int n) throws Exception {
    s.setSoTimeout(DUE_MILLIS);
    try {
      return s.getInputStream().readNBytes(n);
    } finally {
      s.setSoTimeout(HELD_MILLIS);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
