package io.sluice.console.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.http.HttpResponse;

/** The console API's JSON answers: never cached, since each is the state of the moment. */
final class ConsoleReply {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ConsoleReply() {}

  static HttpResponse json(int status, Object value) {
    return HttpResponse.json(status, value).withHeader("Cache-Control", "no-store");
  }

  static HttpResponse error(int status, String message) {
    return json(status, JSON.createObjectNode().put("error", message));
  }
}
