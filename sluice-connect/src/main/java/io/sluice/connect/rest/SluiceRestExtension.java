package io.sluice.connect.rest;

import io.sluice.http.web.WebConfig;
import jakarta.ws.rs.Priorities;
import java.util.Map;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;

/**
 * Hooks Sluice's additions into Kafka Connect's own REST server, so the API stays Connect's (same paths, shapes and
 * error bodies) and nothing sits in front of it. Connect instantiates this from {@code rest.extension.classes} and hands
 * it the worker configuration.
 */
public final class SluiceRestExtension implements ConnectRestExtension {
  private WorkerSettings settings;

  @Override
  public void configure(Map<String, ?> configs) {
    settings = WorkerSettings.from(configs);
  }

  @Override
  public void register(ConnectRestExtensionContext context) {
    WebConfig web = settings.webConfigFile().map(f -> WebConfig.load(f, settings.rolesFile().orElse(null)))
        .orElse(WebConfig.none());
    context.configurable().register(new HeaderSizeLimit());
    context.configurable().register(new RestAccess(web, settings.internalToken()), Priorities.AUTHENTICATION);
    context.configurable().register(new ConnectorRequestFilter(settings));
    context.configurable().register(new BodyShapeErrors());
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public void close() {}
}
