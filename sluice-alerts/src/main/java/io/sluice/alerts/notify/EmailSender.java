package io.sluice.alerts.notify;

import io.sluice.alerts.config.Config;
import io.sluice.alerts.types.Alert;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Email through the configured smarthost with Angus Mail: STARTTLS required unless require_tls is false. */
record EmailSender(Config.Email conf, Duration timeout, Templates templates) implements Sender {

  @Override
  public void send(TemplateData d, List<Alert> alerts) throws SendException {
    String[] hp = conf.smarthost().split(":", 2);
    String host = hp[0];
    String port = hp.length > 1 ? hp[1] : "25";
    boolean smtps = port.equals("465");
    String proto = smtps ? "smtps" : "smtp";
    Properties p = new Properties();
    p.put("mail." + proto + ".host", host);
    p.put("mail." + proto + ".port", port);
    p.put("mail." + proto + ".localhost", conf.hello());
    p.put("mail." + proto + ".connectiontimeout", String.valueOf(timeout.toMillis()));
    p.put("mail." + proto + ".timeout", String.valueOf(timeout.toMillis()));
    p.put("mail." + proto + ".writetimeout", String.valueOf(timeout.toMillis()));
    if (!smtps) {
      p.put("mail.smtp.starttls.enable", String.valueOf(conf.requireTls()));
      p.put("mail.smtp.starttls.required", String.valueOf(conf.requireTls()));
    }
    boolean auth = !conf.authUsername().isEmpty();
    p.put("mail." + proto + ".auth", String.valueOf(auth));
    Session session = Session.getInstance(p);
    try {
      MimeMessage msg = new MimeMessage(session);
      Map<String, String> headers = new java.util.LinkedHashMap<>();
      headers.put("From", conf.from());
      headers.put("To", conf.to());
      headers.put("Subject", "{{ template \"email.default.subject\" . }}");
      headers.putAll(conf.headers());
      for (Map.Entry<String, String> h : headers.entrySet()) {
        String v = templates.render(h.getValue(), d);
        switch (h.getKey()) {
          case "From" -> msg.setFrom(new InternetAddress(v));
          case "To" -> msg.setRecipients(Message.RecipientType.TO, InternetAddress.parse(v));
          case "Subject" -> msg.setSubject(v, "UTF-8");
          default -> msg.setHeader(h.getKey(), v);
        }
      }
      msg.setSentDate(Date.from(d.now()));
      MimeMultipart body = new MimeMultipart("alternative");
      String text = templates.render(conf.text(), d);
      if (!text.isEmpty()) {
        MimeBodyPart t = new MimeBodyPart();
        t.setText(text, "UTF-8", "plain");
        body.addBodyPart(t);
      }
      String html = templates.render(conf.html(), d);
      if (!html.isEmpty()) {
        MimeBodyPart h = new MimeBodyPart();
        h.setText(html, "UTF-8", "html");
        body.addBodyPart(h);
      }
      msg.setContent(body);
      try (Transport t = session.getTransport(proto)) {
        if (auth) {
          t.connect(host, Integer.parseInt(port), conf.authUsername(),
              conf.authPassword() == null ? "" : conf.authPassword().reveal());
        } else {
          t.connect();
        }
        t.sendMessage(msg, msg.getAllRecipients());
      }
    } catch (MessagingException e) {
      throw new SendException("sending email failed: " + e.getClass().getSimpleName() + ": " + e.getMessage(), true,
          null);
    }
  }
}
