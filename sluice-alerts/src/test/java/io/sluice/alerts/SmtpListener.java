package io.sluice.alerts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A minimal in-test SMTP server: EHLO with AUTH PLAIN/LOGIN, MAIL, RCPT, DATA; records each message. */
final class SmtpListener implements AutoCloseable {
  record Mail(String auth, String from, List<String> to, String data) {}

  final List<Mail> mails = new CopyOnWriteArrayList<>();
  private final ServerSocket socket;
  private final Thread thread;

  SmtpListener() throws IOException {
    socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
    thread = new Thread(this::serve, "test-smtp");
    thread.setDaemon(true);
    thread.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  private void serve() {
    while (!socket.isClosed()) {
      try (Socket s = socket.accept()) {
        session(s);
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void session(Socket s) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
    OutputStream out = s.getOutputStream();
    reply(out, "220 test ESMTP");
    String auth = "";
    String from = "";
    List<String> to = new ArrayList<>();
    String line;
    while ((line = in.readLine()) != null) {
      String cmd = line.toUpperCase();
      if (cmd.startsWith("EHLO") || cmd.startsWith("HELO")) {
        reply(out, "250-test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME");
      } else if (cmd.startsWith("AUTH PLAIN")) {
        String arg = line.length() > 11 ? line.substring(11).trim() : "";
        if (arg.isEmpty()) {
          reply(out, "334 ");
          arg = in.readLine();
        }
        auth = new String(Base64.getDecoder().decode(arg), StandardCharsets.UTF_8).replace('\0', '|');
        reply(out, "235 ok");
      } else if (cmd.startsWith("AUTH LOGIN")) {
        reply(out, "334 VXNlcm5hbWU6");
        String u = new String(Base64.getDecoder().decode(in.readLine()), StandardCharsets.UTF_8);
        reply(out, "334 UGFzc3dvcmQ6");
        String p = new String(Base64.getDecoder().decode(in.readLine()), StandardCharsets.UTF_8);
        auth = "|" + u + "|" + p;
        reply(out, "235 ok");
      } else if (cmd.startsWith("MAIL FROM:")) {
        from = line.substring(10).trim();
        reply(out, "250 ok");
      } else if (cmd.startsWith("RCPT TO:")) {
        to.add(line.substring(8).trim());
        reply(out, "250 ok");
      } else if (cmd.equals("DATA")) {
        reply(out, "354 go ahead");
        StringBuilder data = new StringBuilder();
        String l;
        while ((l = in.readLine()) != null && !l.equals(".")) {
          data.append(l.startsWith("..") ? l.substring(1) : l).append('\n');
        }
        mails.add(new Mail(auth, from, List.copyOf(to), data.toString()));
        to.clear();
        reply(out, "250 queued");
      } else if (cmd.equals("QUIT")) {
        reply(out, "221 bye");
        return;
      } else if (cmd.equals("RSET") || cmd.equals("NOOP")) {
        reply(out, "250 ok");
      } else {
        reply(out, "502 not implemented");
      }
    }
  }

  private static void reply(OutputStream out, String text) throws IOException {
    out.write((text + "\r\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
