package io.sluice.connect.convert;

/**
 * The name Sluice's JSON converter had before the converters came together in {@code sluice-serde}; stored connector
 * configs and older worker configs still name it, so it stays loadable and writes and reads the very same bytes.
 *
 * @deprecated name {@link io.sluice.serde.connect.JsonEnvelopeConverter} instead.
 */
@Deprecated
public class JsonEnvelopeConverter extends io.sluice.serde.connect.JsonEnvelopeConverter {}
