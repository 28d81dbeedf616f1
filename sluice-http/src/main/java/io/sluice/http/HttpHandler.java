package io.sluice.http;

/** Handles one routed request. Throwing hands the exception to the server's error mapper. */
@FunctionalInterface
public interface HttpHandler {
  HttpResponse handle(HttpRequest request) throws Exception;
}
