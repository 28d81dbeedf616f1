package io.sluice.ops.offsets;

import com.fasterxml.jackson.databind.JsonNode;

/** One field of a stored position: its raw JSON value and how a person reads it ({@code 0/16B3748}, a UTC time). */
public record Field(String name, JsonNode raw, String shown) {}
