package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A login to the console as a browser makes it: the form's token from GET /login, sent back as cookie and field. */
public final class ConsoleLogin {
  private ConsoleLogin() {}

  public static HttpResponse<String> login(HttpClient http, String ui, String user, String password) throws Exception {
    HttpResponse<String> form = http.send(HttpRequest.newBuilder(URI.create(ui + "/login")).build(),
        HttpResponse.BodyHandlers.ofString());
    String cookie = form.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    Matcher token = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(form.body());
    assertTrue(token.find(), form.body());
    return http.send(HttpRequest.newBuilder(URI.create(ui + "/login")).header("Cookie", cookie)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + token.group(1) + "&user=" + user + "&password="
            + password)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The session cookie ({@code name=value}) a successful login set. */
  public static String session(HttpResponse<String> login) {
    return login.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("sluice_session="))
        .map(c -> c.split(";")[0]).findFirst().orElseThrow(() -> new AssertionError("no session: " + login));
  }
}
