package io.sluice.connect.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Connect's error body, {@code {"error_code": status, "message": …}}, for every refusal Sluice adds to its API. */
final class ConnectError {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ConnectError() {}

  static Response.ResponseBuilder builder(int status, String message) {
    return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
        .entity(JSON.createObjectNode().put("error_code", status).put("message", message).toString());
  }

  static Response response(int status, String message) {
    return builder(status, message).build();
  }
}
