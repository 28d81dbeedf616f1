package io.sluice.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback, owned by a test, between a client and one server: it forwards both ways until {@link #cut},
 * then holds every byte, of the connections it has and of those it accepts meanwhile, as a network cut does: nothing
 * is refused or reset, each side's requests just go unanswered and its writes back up. {@link #heal} lets what was held
 * through, late, as TCP delivers it once the network is back; by then the client may have given a connection up and
 * the server may see a request its sender no longer waits for, which is what a fenced zombie's late write looks like.
 * A server that refuses the connection (a broker down) has the client's connection closed at once.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object gate = new Object();
  private boolean cut;
  private volatile boolean closed;

  /** A proxy listening on loopback port {@code port} (0: a free one) for {@code target}. */
  TcpProxy(int port, InetSocketAddress target) throws IOException {
    this.target = target;
    server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 256);
    daemon("accept", this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  /** From now on nothing passes, either way, on any connection, until {@link #heal}. */
  void cut() {
    synchronized (gate) {
      cut = true;
    }
  }

  /** Lets everything held pass, and what follows. */
  void heal() {
    synchronized (gate) {
      cut = false;
      gate.notifyAll();
    }
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      sockets.add(client);
      daemon("connect", () -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket upstream = new Socket();
    try {
      // A connection made during a cut reaches the server only once the cut heals, as its handshake would.
      awaitOpen();
      sockets.add(upstream);
      upstream.connect(target, 10_000);
      upstream.setTcpNoDelay(true);
      client.setTcpNoDelay(true);
    } catch (IOException | InterruptedException e) {
      close(client, upstream);
      return;
    }
    daemon("up", () -> pump(client, upstream));
    daemon("down", () -> pump(upstream, client));
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[65536];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        // Held here during a cut: what the sender writes meanwhile stays in the sockets' buffers, then backs up.
        awaitOpen();
        out.write(buffer, 0, n);
      }
      awaitOpen();
    } catch (IOException | InterruptedException e) {
      // One side closed or reset: the connection ends both ways.
    }
    close(from, to);
  }

  private void awaitOpen() throws InterruptedException {
    synchronized (gate) {
      while (cut && !closed) {
        gate.wait();
      }
    }
  }

  private void close(Socket... pair) {
    for (Socket s : pair) {
      sockets.remove(s);
      try {
        s.close();
      } catch (IOException ignored) {
        // Closing is all that is left to do with it.
      }
    }
  }

  private void daemon(String what, Runnable run) {
    Thread t = new Thread(run, "tcp-proxy-" + server.getLocalPort() + "-" + what);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    heal();
    server.close();
    close(sockets.toArray(Socket[]::new));
  }
}
