package io.sluice.connect.rest;

import com.fasterxml.jackson.databind.JsonMappingException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * A JSON body of the wrong shape (a number where Connect expects a map, an unknown field of a create request) is the
 * client's error: 400 in Connect's error shape, where Connect's own mapper answers 500 for any exception it does not
 * know. Jersey picks the most specific mapper, so this one sees only Jackson's mapping errors.
 */
final class BodyShapeErrors implements ExceptionMapper<JsonMappingException> {
  @Override
  public Response toResponse(JsonMappingException e) {
    String message = e.getOriginalMessage() == null ? "Request body has the wrong shape" : e.getOriginalMessage();
    return ConnectError.response(400, message);
  }
}
