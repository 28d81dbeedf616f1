package io.sluice.client.testing;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code http_config}s every client in Sluice refuses, as YAML flow mappings, each with the message it is refused
 * with: Prometheus' own checks and words (its {@code config.HTTPClientConfig} and {@code config.TLSConfig}), then the
 * keys Sluice cannot honour. The tests of each path that reads an {@code http_config} (a scrape config, a router's
 * receiver, a file of its own) go through the same table, so the refusals stay identical on every path.
 */
public final class HttpConfigRefusals {
  private HttpConfigRefusals() {}

  public static final Map<String, String> CASES = cases();

  private static Map<String, String> cases() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("{bearer_token: t, bearer_token_file: f}",
        "at most one of bearer_token & bearer_token_file must be configured");
    c.put("{basic_auth: {username: u}, bearer_token: t}",
        "at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured");
    c.put("{basic_auth: {username: u, password: p, password_file: f}}",
        "at most one of basic_auth password & password_file must be configured");
    c.put("{authorization: {credentials: c}, bearer_token: t}",
        "authorization is not compatible with bearer_token & bearer_token_file");
    c.put("{authorization: {credentials: c, credentials_file: f}}",
        "at most one of authorization credentials & credentials_file must be configured");
    c.put("{authorization: {type: Basic, credentials: c}}",
        "authorization type cannot be set to \"basic\", use \"basic_auth\" instead");
    c.put("{authorization: {credentials: c}, basic_auth: {username: u}}",
        "at most one of basic_auth, oauth2 & authorization must be configured");
    c.put("{tls_config: {ca: x, ca_file: ca.crt}}", "at most one of ca and ca_file must be configured");
    c.put("{tls_config: {cert_file: client.crt}}",
        "exactly one of key or key_file must be configured when a client certificate is configured");
    c.put("{tls_config: {key_file: client.key}}",
        "exactly one of cert or cert_file must be configured when a client key is configured");
    c.put("{http_headers: {Authorization: {values: [x]}}}", "setting header \"Authorization\" is not allowed");
    c.put("{oauth2: {client_id: x, client_secret: y, token_url: 'http://127.0.0.1:9/t'}}",
        "oauth2 is not supported by Sluice");
    c.put("{proxy_url: 'http://127.0.0.1:3128'}", "proxy_url is not supported by Sluice");
    c.put("{tls_config: {ca: x}}", "tls_config ca is not supported by Sluice: give ca_file");
    c.put("{tls_config: {server_name: example.org}}", "tls_config server_name is not supported by Sluice");
    return Collections.unmodifiableMap(c);
  }
}
